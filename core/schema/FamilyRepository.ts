import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { EntityKind, Requirement } from "./Attribute.js"
import type { AttributeSpec } from "./AttributeValues.js"
import type { Family, FamilyAttributeEntry } from "./Family.js"

/** An attribute as a family declares it: what value validation and completeness need. */
export interface FamilyAttribute extends AttributeSpec {
  readonly attributeId: string
  readonly effectiveRequirement: "required" | "suggested" | "available"
  readonly isVariantAxis: boolean
  readonly position: number
}

/** A family and the attributes it declares, by position then code. */
export interface FamilySchema {
  readonly family: Family
  readonly attributes: ReadonlyArray<FamilyAttribute>
}

/** A stored attachment of an attribute to a family. */
export interface AttachmentRecord {
  readonly organizationId: string
  readonly familyId: string
  readonly attributeId: string
  readonly requirementOverride: Requirement | null
  readonly position: number
  readonly createdAt: string
  readonly updatedAt: string
}

/** Attribute families and their attachments. Callers run these inside `UnitOfWork.tenant`. */
export class FamilyRepository extends Context.Tag("catalog/FamilyRepository")<FamilyRepository, {
  /** Fails with Conflict when the organization already has a family with this code. */
  readonly insert: (family: Family) => Effect.Effect<void, Conflict>
  /**
   * Inserts the one family of a provisioned kind (category, brand) unless the organization
   * has it; answers whether this call inserted it. A unique index decides, so concurrent
   * first calls insert exactly one.
   */
  readonly insertProvisioned: (family: Family) => Effect.Effect<boolean>
  /** Families of one entity kind by code. */
  readonly list: (organizationId: string, entityKind: EntityKind) => Effect.Effect<ReadonlyArray<Family>>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<Family>>
  readonly update: (
    organizationId: string,
    id: string,
    changes: { readonly label?: Readonly<Record<string, string>>; readonly description?: string | null; readonly updatedAt: string }
  ) => Effect.Effect<Option.Option<Family>>
  /**
   * Deletes the family (attachments cascade); answers whether it existed. Fails with
   * Conflict while a record (a product) still references it.
   */
  readonly delete: (organizationId: string, id: string) => Effect.Effect<boolean, Conflict>
  /** Fails with Conflict when the attribute is already attached. */
  readonly attach: (attachment: AttachmentRecord) => Effect.Effect<void, Conflict>
  /** Attaches unless attached already (provisioning). */
  readonly attachIfAbsent: (attachment: AttachmentRecord) => Effect.Effect<void>
  readonly updateAttachment: (
    organizationId: string,
    familyId: string,
    attributeId: string,
    changes: { readonly requirementOverride?: Requirement | null; readonly position?: number; readonly updatedAt: string }
  ) => Effect.Effect<Option.Option<AttachmentRecord>>
  /** Answers whether the attribute was attached. */
  readonly detach: (organizationId: string, familyId: string, attributeId: string) => Effect.Effect<boolean>
  /** The attachments of a family with the attribute fields copied in, by position then code. */
  readonly entries: (organizationId: string, familyId: string) => Effect.Effect<ReadonlyArray<FamilyAttributeEntry>>
  /** The family and the attributes it declares; None when it does not exist. */
  readonly schemaOf: (organizationId: string, familyId: string) => Effect.Effect<Option.Option<FamilySchema>>
}>() {}
