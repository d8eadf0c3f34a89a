import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { AttributeGroup, AttributeRecord, EntityKind } from "./Attribute.js"

export type AttributeChanges = Partial<Omit<AttributeRecord, "id" | "organizationId" | "entityKind" | "createdAt" | "createdBy">> & {
  readonly updatedAt: string
  readonly updatedBy: string | null
}

/** Attribute groups and attribute definitions. Callers run these inside `UnitOfWork.tenant`. */
export class AttributeRepository extends Context.Tag("catalog/AttributeRepository")<AttributeRepository, {
  /** Fails with Conflict when the organization already has a group with this code. */
  readonly insertGroup: (group: AttributeGroup) => Effect.Effect<void, Conflict>
  /** Groups by position, then code. */
  readonly listGroups: (organizationId: string) => Effect.Effect<ReadonlyArray<AttributeGroup>>
  readonly findGroup: (organizationId: string, id: string) => Effect.Effect<Option.Option<AttributeGroup>>
  /** Fails with Conflict when the code is taken for this entity kind. */
  readonly insert: (attribute: AttributeRecord) => Effect.Effect<void, Conflict>
  /**
   * Inserts unless the code is taken for this entity kind; answers the stored attribute with
   * that code either way (provisioning, safe under concurrent calls).
   */
  readonly insertIfAbsent: (attribute: AttributeRecord) => Effect.Effect<{ readonly attribute: AttributeRecord; readonly inserted: boolean }>
  /** Attributes of one entity kind by position, then code. */
  readonly list: (organizationId: string, entityKind: EntityKind) => Effect.Effect<ReadonlyArray<AttributeRecord>>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<AttributeRecord>>
  /** Fails with Conflict when a new code is taken for this entity kind. */
  readonly update: (organizationId: string, id: string, changes: AttributeChanges) => Effect.Effect<Option.Option<AttributeRecord>, Conflict>
  /** Deletes the definition (its family attachments cascade); answers whether it existed. */
  readonly delete: (organizationId: string, id: string) => Effect.Effect<boolean>
}>() {}
