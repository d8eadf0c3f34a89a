import { Schema } from "effect"
import { Name, SearchQuery, Slug, strict, Timestamp, Uuid } from "../shared/Fields.js"
import { AttributeValuesField, StoredAttributeValues } from "./Category.js"

/** A brand; its name is unique per organization, ignoring case. */
export class Brand extends Schema.Class<Brand>("Brand")({
  id: Uuid,
  organizationId: Uuid,
  name: Schema.String,
  slug: Schema.String,
  attributes: StoredAttributeValues,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateBrand = Schema.Struct({
  name: Name,
  slug: Schema.optional(Slug),
  attributes: Schema.optional(AttributeValuesField)
})
export type CreateBrand = typeof CreateBrand.Type

export const UpdateBrand = Schema.Struct({
  name: Schema.optional(Name),
  slug: Schema.optional(Slug),
  attributes: Schema.optional(AttributeValuesField)
})
export type UpdateBrand = typeof UpdateBrand.Type

/** `GET /v1/brands`: `q` matches part of the name or slug ignoring case; other keys are 422. */
export const ListBrandsQuery = Schema.Struct({
  q: Schema.optional(SearchQuery)
}).annotations(strict)
export type ListBrandsQuery = typeof ListBrandsQuery.Type
