import { JSONSchema, Schema } from "effect"
import { Name, OpenObject, Position, SearchQuery, Slug, strict, Timestamp, Uuid } from "../shared/Fields.js"

/** Attribute values as written: code -> entries, checked against the family by the use case. */
export const AttributeValuesField = OpenObject({
  identifier: "AttributeValues",
  description: "attribute code -> entries {locale, channel, value}",
  message: "must be an object of attribute code -> entries"
})

const StoredAttributeValuesShape = Schema.Record({
  key: Schema.String,
  value: Schema.Array(Schema.Struct({ locale: Schema.NullOr(Schema.String), channel: Schema.NullOr(Schema.String), value: Schema.Unknown }))
})

const isNullOrString = (u: unknown) => u === null || typeof u === "string"

const isStoredValues = (u: unknown): u is typeof StoredAttributeValuesShape.Type => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  for (const entries of Object.values(u)) {
    if (!Array.isArray(entries)) return false
    for (const e of entries as ReadonlyArray<unknown>) {
      if (typeof e !== "object" || e === null || !("locale" in e) || !("channel" in e)) return false
      if (!isNullOrString(e.locale) || !isNullOrString(e.channel)) return false
    }
  }
  return true
}

const { $schema: _, ...storedValuesJsonSchema } = JSONSchema.make(StoredAttributeValuesShape)

/**
 * Attribute values as stored and answered: code -> entries `{locale, channel, value}`. Checked
 * in one pass and passed through as they are, not rebuilt entry by entry: a product holds
 * dozens of entries and a list page fifty products, on every read.
 */
export const StoredAttributeValues = Schema.declare(isStoredValues, {
  identifier: "StoredAttributeValues",
  description: "attribute code -> entries {locale, channel, value}",
  jsonSchema: storedValuesJsonSchema
})


/** A node of the category tree (by `parentId`); the slug is unique per organization. */
export class Category extends Schema.Class<Category>("Category")({
  id: Uuid,
  organizationId: Uuid,
  parentId: Schema.NullOr(Uuid),
  name: Schema.String,
  slug: Schema.String,
  position: Schema.Number,
  attributes: StoredAttributeValues,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateCategory = Schema.Struct({
  name: Name,
  slug: Schema.optional(Slug),
  parentId: Schema.optional(Schema.NullOr(Uuid)),
  position: Schema.optional(Position),
  attributes: Schema.optional(AttributeValuesField)
})
export type CreateCategory = typeof CreateCategory.Type

export const UpdateCategory = Schema.Struct({
  name: Schema.optional(Name),
  slug: Schema.optional(Slug),
  parentId: Schema.optional(Schema.NullOr(Uuid)),
  position: Schema.optional(Position),
  attributes: Schema.optional(AttributeValuesField)
})
export type UpdateCategory = typeof UpdateCategory.Type

/** `GET /v1/categories`: children of `parentId` (all when absent), `q` in name or slug. */
export const ListCategoriesQuery = Schema.Struct({
  parentId: Schema.optional(Uuid),
  q: Schema.optional(SearchQuery)
}).annotations(strict)
export type ListCategoriesQuery = typeof ListCategoriesQuery.Type
