import { Brand, Schema } from "effect"
import { Uuid } from "../shared/Fields.js"
import { ProductListItem, ProductStatus } from "./Product.js"

/** `GET /v1/products`. */
export class ProductList extends Schema.Class<ProductList>("ProductList")({
  data: Schema.Array(ProductListItem),
  limit: Schema.Int,
  offset: Schema.Int,
  hasMore: Schema.Boolean,
  total: Schema.optional(Schema.Int)
}) {}

/** A `ProductList` as JSON text, its products' stored values spliced in as the store keeps them. */
export type ProductListJson = string & Brand.Brand<"ProductListJson">
export const ProductListJson = Brand.nominal<ProductListJson>()

/** A JSON object's text with one more field, `value` encoded, after its others. */
export const withField = (object: string, field: string, value: string | null): string =>
  `${object.slice(0, object.lastIndexOf("}"))},${JSON.stringify(field)}:${JSON.stringify(value)}}`

const Count = Schema.Int

/** `GET /v1/products/facets`: every dimension sorted by count descending, then by name or value. */
export class ProductFacets extends Schema.Class<ProductFacets>("ProductFacets")({
  total: Count,
  families: Schema.Array(Schema.Struct({ id: Uuid, code: Schema.String, label: Schema.NullOr(Schema.String), count: Count })),
  statuses: Schema.Array(Schema.Struct({ value: ProductStatus, count: Count })),
  categories: Schema.Array(Schema.Struct({ id: Uuid, slug: Schema.String, name: Schema.NullOr(Schema.String), count: Count })),
  brands: Schema.Array(Schema.Struct({ id: Uuid, name: Schema.NullOr(Schema.String), count: Count })),
  connectors: Schema.Array(Schema.Struct({ id: Uuid, name: Schema.NullOr(Schema.String), count: Count })),
  tags: Schema.Array(Schema.Struct({ value: Schema.String, count: Count }))
}) {}
