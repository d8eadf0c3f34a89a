import { Schema } from "effect"
import { Code, LabelInput, LocalizedLabel, Position, strict, Timestamp, Uuid } from "../shared/Fields.js"
import { Unchangeable } from "../shared/Unchangeable.js"
import { EntityKind, Requirement, ValidationRules } from "./Attribute.js"
import { AttributeType } from "./AttributeValues.js"

export class Family extends Schema.Class<Family>("Family")({
  id: Uuid,
  organizationId: Uuid,
  code: Schema.String,
  entityKind: EntityKind,
  label: LocalizedLabel,
  description: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/** The deprecated override boolean: true = required, false = any other override, null = inherit. */
export const isRequiredOverrideOf = (override: Requirement | null): boolean | null => override === null ? null : override === "required"

/** An attachment of an attribute to a family, as stored and as attach/patch answer it. */
export class FamilyAttachment extends Schema.Class<FamilyAttachment>("FamilyAttachment")({
  familyId: Uuid,
  attributeId: Uuid,
  requirementOverride: Schema.NullOr(Requirement),
  isRequiredOverride: Schema.NullOr(Schema.Boolean),
  position: Schema.Number
}) {}

/** One entry of `GET /v1/attribute-families/{id}`: the attachment with the attribute's fields copied in. */
export class FamilyAttributeEntry extends Schema.Class<FamilyAttributeEntry>("FamilyAttributeEntry")({
  ...FamilyAttachment.fields,
  code: Schema.String,
  type: AttributeType,
  label: LocalizedLabel,
  isLocalizable: Schema.Boolean,
  isScopable: Schema.Boolean,
  requirement: Requirement,
  isRequired: Schema.Boolean,
  isVariantAxis: Schema.Boolean,
  validation: Schema.NullOr(ValidationRules),
  effectiveRequirement: Requirement,
  effectiveIsRequired: Schema.Boolean
}) {}

export class FamilyDetails extends Schema.Class<FamilyDetails>("FamilyDetails")({
  ...Family.fields,
  attributes: Schema.Array(FamilyAttributeEntry)
}) {}

/** Families are created for products and content; category and brand families are provisioned. */
const CreatableEntityKind = Schema.Literal("product", "content")

export const CreateFamily = Schema.Struct({
  code: Code,
  label: LabelInput,
  entityKind: Schema.optional(CreatableEntityKind),
  description: Schema.optional(Schema.NullOr(Schema.String))
})
export type CreateFamily = typeof CreateFamily.Type

/** `label` and `description`; `code` and `entityKind` are accepted only when they equal the current ones. */
export const UpdateFamily = Schema.Struct({
  label: Schema.optional(LabelInput),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  code: Schema.optional(Unchangeable),
  entityKind: Schema.optional(Unchangeable)
})
export type UpdateFamily = typeof UpdateFamily.Type


export const AttachAttribute = Schema.Struct({
  attributeId: Uuid,
  requirementOverride: Schema.optional(Schema.NullOr(Requirement)),
  isRequiredOverride: Schema.optional(Schema.NullOr(Schema.Boolean)),
  position: Schema.optional(Position)
})
export type AttachAttribute = typeof AttachAttribute.Type

export const UpdateAttachment = Schema.Struct({
  requirementOverride: Schema.optional(Schema.NullOr(Requirement)),
  isRequiredOverride: Schema.optional(Schema.NullOr(Schema.Boolean)),
  position: Schema.optional(Position)
})
export type UpdateAttachment = typeof UpdateAttachment.Type

export const ListFamiliesQuery = Schema.Struct({ entityKind: Schema.optional(EntityKind) }).annotations(strict)
