import { Schema } from "effect"
import { AttributeValuesField, StoredAttributeValues } from "../catalog/Category.js"
import { maxCharacters, Name, NonEmptyString, PositionFromZero, Timestamp, Uuid } from "../shared/Fields.js"

export const VariantStatus = Schema.Literal("draft", "active", "archived")
export type VariantStatus = typeof VariantStatus.Type

const Sku = NonEmptyString.pipe(
  maxCharacters(255, "must be at most 255 characters"),
  Schema.filter((s) => s.trim() === s, { message: () => "must not start or end with whitespace" })
)

/** A purchasable version of a product (size M in blue); its SKU is unique in the organization. */
export class Variant extends Schema.Class<Variant>("Variant")({
  id: Uuid,
  organizationId: Uuid,
  productId: Uuid,
  sku: Schema.String,
  name: Schema.String,
  status: VariantStatus,
  attributes: StoredAttributeValues,
  position: Schema.Number,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateVariant = Schema.Struct({
  sku: Sku,
  name: Schema.optional(Name),
  status: Schema.optional(VariantStatus),
  attributes: Schema.optional(AttributeValuesField),
  position: Schema.optional(PositionFromZero)
})
export type CreateVariant = typeof CreateVariant.Type

export const UpdateVariant = Schema.Struct({
  sku: Schema.optional(Sku),
  name: Schema.optional(Name),
  status: Schema.optional(VariantStatus),
  attributes: Schema.optional(AttributeValuesField),
  position: Schema.optional(PositionFromZero)
})
export type UpdateVariant = typeof UpdateVariant.Type

export class VariantList extends Schema.Class<VariantList>("VariantList")({
  data: Schema.Array(Variant),
  limit: Schema.Int,
  offset: Schema.Int,
  hasMore: Schema.Boolean
}) {}
