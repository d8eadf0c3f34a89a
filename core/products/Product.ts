import { Brand, Schema } from "effect"
import { AttributeValuesField, StoredAttributeValues } from "../catalog/Category.js"
import { TagsInput } from "../catalog/Tags.js"
import { BoundedArray } from "../shared/Bounded.js"
import { Name, NonEmptyString, Slug, Timestamp, Uuid } from "../shared/Fields.js"

export const ProductStatus = Schema.Literal("draft", "active", "archived")
export type ProductStatus = typeof ProductStatus.Type

/** A product as stored, with its category assignments in the order they were given. */
export interface ProductRecord {
  readonly id: string
  readonly organizationId: string
  readonly familyId: string
  readonly name: string
  readonly slug: string
  readonly status: ProductStatus
  readonly brandId: string | null
  readonly attributes: Readonly<Record<string, ReadonlyArray<{ readonly locale: string | null; readonly channel: string | null; readonly value: unknown }>>>
  readonly tags: ReadonlyArray<string>
  readonly categoryIds: ReadonlyArray<string>
  /** The connector that imported the product; null for products written over the API. */
  readonly sourceConnectorId: string | null
  readonly createdBy: string | null
  readonly updatedBy: string | null
  readonly createdAt: string
  readonly updatedAt: string
}

const productFields = {
  id: Uuid,
  organizationId: Uuid,
  familyId: Uuid,
  name: Schema.String,
  slug: Schema.String,
  status: ProductStatus,
  brandId: Schema.NullOr(Uuid),
  /** The connector that imported the product; null for products written over the API. */
  sourceConnectorId: Schema.NullOr(Uuid),
  attributes: StoredAttributeValues,
  tags: Schema.Array(Schema.String),
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}

export class Product extends Schema.Class<Product>("Product")(productFields) {}

/**
 * A `Product` as JSON text, assembled by the store from its columns: the stored values are
 * already JSON and are spliced in as they are, never parsed and encoded again.
 */
export type ProductJson = string & Brand.Brand<"ProductJson">
export const ProductJson = Brand.nominal<ProductJson>()

/** `GET /v1/products/{id}`: with `?locale=`/`?channel=`, also the values resolved for that scope. */
export class ProductDetails extends Schema.Class<ProductDetails>("ProductDetails")({
  ...productFields,
  resolvedAttributes: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}) {}

/** A product in a list: adds the first media's url and the category assignments. */
export class ProductListItem extends Schema.Class<ProductListItem>("ProductListItem")({
  ...productFields,
  thumbnailUrl: Schema.NullOr(Schema.String),
  categoryIds: Schema.Array(Uuid)
}) {}

// Records come decoded from storage or built by the planner: constructors skip re-validation.
export const toProduct = (r: ProductRecord): Product =>
  new Product({
    id: r.id,
    organizationId: r.organizationId,
    familyId: r.familyId,
    name: r.name,
    slug: r.slug,
    status: r.status,
    brandId: r.brandId,
    sourceConnectorId: r.sourceConnectorId,
    attributes: r.attributes,
    tags: r.tags,
    createdBy: r.createdBy,
    updatedBy: r.updatedBy,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt
  }, true)

export const toListItem = (r: ProductRecord, thumbnailUrl: string | null = null): ProductListItem =>
  new ProductListItem({ ...toProduct(r), thumbnailUrl, categoryIds: r.categoryIds }, true)

const CategoryIds = BoundedArray(Uuid, 100, "at most 100 categories")

/** The fields a create and an update alike may leave out. */
const OptionalProductFields = {
  slug: Schema.optional(Slug),
  status: Schema.optional(ProductStatus),
  brandId: Schema.optional(Schema.NullOr(Uuid)),
  attributes: Schema.optional(AttributeValuesField),
  tags: Schema.optional(TagsInput),
  categoryIds: Schema.optional(CategoryIds)
}

export const CreateProduct = Schema.Struct({
  familyId: Uuid,
  name: Name,
  ...OptionalProductFields
})
export type CreateProduct = typeof CreateProduct.Type

export const UpdateProduct = Schema.Struct({
  familyId: Schema.optional(Uuid),
  name: Schema.optional(Name),
  ...OptionalProductFields
})
export type UpdateProduct = typeof UpdateProduct.Type

/**
 * `locale` and `channel` as every product read takes them (by id, the list, the facets): a key
 * sent empty names no scope, so it is refused rather than read as absent.
 */
export const ScopeQueryFields = {
  locale: Schema.optional(NonEmptyString),
  channel: Schema.optional(NonEmptyString)
}
