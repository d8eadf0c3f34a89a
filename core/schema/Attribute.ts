import { Schema } from "effect"
import { isJsonValue } from "../shared/CanonicalJson.js"
import { Code, LabelInput, LocalizedLabel, OpenObject, Position, strict, Timestamp, Uuid } from "../shared/Fields.js"
import { Unchangeable } from "../shared/Unchangeable.js"
import { AttributeType } from "./AttributeValues.js"

/** The kinds of record an attribute (or family) shapes. */
export const EntityKind = Schema.Literal("product", "content", "category", "brand")
export type EntityKind = typeof EntityKind.Type

/** required counts toward completeness; suggested is shown but not counted; available is hidden until used. */
export const Requirement = Schema.Literal("required", "suggested", "available")
export type Requirement = typeof Requirement.Type

/** The deprecated boolean: true = required, false = anything else. */
export const isRequiredOf = (requirement: Requirement): boolean => requirement === "required"

/** The deprecated boolean as written: true = required, false = available. */
export const requirementOfIsRequired = (isRequired: boolean): Requirement => (isRequired ? "required" : "available")

export const ValidationRules = OpenObject({
  identifier: "ValidationRules",
  description: "free-form rules; minLength, maxLength, pattern, min, max, options, units and currencies are honoured and must be readable (null sets none)",
  message: "must be an object"
}).pipe(Schema.filter(isJsonValue, { message: () => "must hold only JSON values: a number such as 1e400 does not fit a double" }))

/** A stored attribute definition. */
export interface AttributeRecord {
  readonly id: string
  readonly organizationId: string
  readonly code: string
  readonly entityKind: EntityKind
  readonly label: Readonly<Record<string, string>>
  readonly type: AttributeType
  readonly groupId: string | null
  readonly isLocalizable: boolean
  readonly isScopable: boolean
  readonly requirement: Requirement
  readonly isVariantAxis: boolean
  readonly validation: Readonly<Record<string, unknown>> | null
  readonly defaultValue: unknown
  readonly position: number
  readonly createdBy: string | null
  readonly updatedBy: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

export class Attribute extends Schema.Class<Attribute>("Attribute")({
  id: Uuid,
  organizationId: Uuid,
  code: Schema.String,
  entityKind: EntityKind,
  label: LocalizedLabel,
  type: AttributeType,
  groupId: Schema.NullOr(Uuid),
  isLocalizable: Schema.Boolean,
  isScopable: Schema.Boolean,
  requirement: Requirement,
  isRequired: Schema.Boolean,
  isVariantAxis: Schema.Boolean,
  validation: Schema.NullOr(ValidationRules),
  defaultValue: Schema.Unknown,
  position: Schema.Number,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const toAttribute = (r: AttributeRecord): Attribute =>
  new Attribute({ ...r, defaultValue: r.defaultValue ?? null, isRequired: isRequiredOf(r.requirement) })


/** The fields a create and an update alike may leave out. */
const OptionalAttributeFields = {
  groupId: Schema.optional(Schema.NullOr(Uuid)),
  isLocalizable: Schema.optional(Schema.Boolean),
  isScopable: Schema.optional(Schema.Boolean),
  requirement: Schema.optional(Requirement),
  isRequired: Schema.optional(Schema.Boolean),
  isVariantAxis: Schema.optional(Schema.Boolean),
  validation: Schema.optional(Schema.NullOr(ValidationRules)),
  defaultValue: Schema.optional(Schema.Unknown),
  position: Schema.optional(Position)
}

export const CreateAttribute = Schema.Struct({
  code: Code,
  label: LabelInput,
  type: AttributeType,
  entityKind: Schema.optional(EntityKind),
  ...OptionalAttributeFields
})
export type CreateAttribute = typeof CreateAttribute.Type

/** Any create field; `entityKind` is accepted only when it equals the current kind. */
export const UpdateAttribute = Schema.Struct({
  code: Schema.optional(Code),
  label: Schema.optional(LabelInput),
  type: Schema.optional(AttributeType),
  entityKind: Schema.optional(Unchangeable),
  ...OptionalAttributeFields
})
export type UpdateAttribute = typeof UpdateAttribute.Type

export const ListAttributesQuery = Schema.Struct({ entityKind: Schema.optional(EntityKind) }).annotations(strict)

/** `GET /v1/attributes/{id}/usage`: rows holding a value under the attribute's code. */
export class AttributeUsage extends Schema.Class<AttributeUsage>("AttributeUsage")({
  products: Schema.Int,
  variants: Schema.Int,
  contentPages: Schema.Int,
  categories: Schema.Int,
  brands: Schema.Int,
  total: Schema.Int
}) {}

export class AttributeGroup extends Schema.Class<AttributeGroup>("AttributeGroup")({
  id: Uuid,
  organizationId: Uuid,
  code: Schema.String,
  label: LocalizedLabel,
  position: Schema.Number,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateAttributeGroup = Schema.Struct({
  code: Code,
  label: LabelInput,
  position: Schema.optional(Position)
})
export type CreateAttributeGroup = typeof CreateAttributeGroup.Type
