import { Schema } from "effect"
import { canonicalTags, MAX_TAGS } from "../catalog/Tags.js"
import { DateTimeString, IntegerParam, isUuid, NonEmptyString, NumberText, SearchQuery, strict, Uuid } from "../shared/Fields.js"
import { ProductStatus, ScopeQueryFields } from "./Product.js"

/** A query boolean: `true`, `false`, `1` or `0`. */
const BooleanParam = Schema.transform(
  Schema.Literal("true", "false", "1", "0").annotations({ message: () => "must be true, false, 1 or 0" }),
  Schema.Boolean,
  { strict: true, decode: (s) => s === "true" || s === "1", encode: (b) => (b ? "true" : "false") }
)

/**
 * The pattern alone also admits numbers past a double's range (`1e400`), which are refused: no
 * pattern draws that bound exactly, so the description states it.
 */
const NumberParam = NumberText("must be a number", "a number in decimal notation, with an optional fraction and exponent, within a double's range: 1e400 is refused").pipe(Schema.finite({ message: () => "must be a number" })).annotations({
  message: () => "must be a number"
})

/** One value or several as a query carries them, with what the interface's document says of them. */
const OneOrMore = (description: string) => Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({ description })

/** A repeatable parameter: one value or several, always an array once decoded. */
const Repeated = <A>(item: Schema.Schema<A, string>, description: string) =>
  Schema.transform(OneOrMore(description), Schema.Array(item), {
    strict: true,
    decode: (v) => (typeof v === "string" ? [v] : v),
    encode: (v) => v
  })

/**
 * `ids` also accepts comma-separated values. The specification types them as strings, not
 * UUIDs: one that is no UUID names no product, as an unknown UUID does, and is dropped here.
 */
const Ids = Schema.transform(OneOrMore("at most 500 ids, repeated or comma-separated; one that is no UUID names no product"), Schema.Array(Schema.String), {
  strict: true,
  decode: (v) => (typeof v === "string" ? [v] : v).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s.length > 0),
  encode: (v) => v
}).pipe(
  Schema.maxItems(500, { message: () => "at most 500 ids" }),
  Schema.transform(Schema.Array(Uuid), {
    strict: true,
    decode: (ids) => ids.filter(isUuid).map((id) => id.toLowerCase()),
    encode: (ids) => ids
  })
)

/**
 * No product carries more than 50 tags, so a filter naming more could match nothing. Counted
 * once canonicalized, as the filter compares them: `Sale` and `sale` are one tag.
 */
const TagFilter = Repeated(Schema.String, `at most ${MAX_TAGS} tags once canonicalized, repeated; a product matches when it carries all`).pipe(Schema.filter((values) => canonicalTags(values).length <= MAX_TAGS, {
  message: () => `at most ${MAX_TAGS} tags`,
  description: `at most ${MAX_TAGS} tags once canonicalized`
}))

const SortBy = Schema.Literal("name", "slug", "status", "updatedAt", "createdAt", "relevance", "attribute")
type SortBy = typeof SortBy.Type

/** The filters shared by the list and the facets. */
const filterFields = {
  status: Schema.optional(ProductStatus),
  q: Schema.optional(SearchQuery),
  slug: Schema.optional(NonEmptyString),
  familyId: Schema.optional(Uuid),
  categoryId: Schema.optional(Uuid),
  includeDescendants: Schema.optional(BooleanParam),
  brand: Schema.optional(Schema.String),
  brandId: Schema.optional(Uuid),
  ids: Schema.optional(Ids),
  tag: Schema.optional(TagFilter),
  connectorId: Schema.optional(Uuid),
  updatedSince: Schema.optional(DateTimeString),
  filterAttribute: Schema.optional(NonEmptyString),
  filterMin: Schema.optional(NumberParam),
  filterMax: Schema.optional(NumberParam),
  ...ScopeQueryFields
}

const pageFields = {
  sortBy: Schema.optional(SortBy),
  sortAttribute: Schema.optional(NonEmptyString),
  sortDir: Schema.optional(Schema.Literal("asc", "desc")),
  limit: Schema.optional(IntegerParam(1, 200, 50)),
  offset: Schema.optional(IntegerParam(0, Number.MAX_SAFE_INTEGER, 0)),
  withTotal: Schema.optional(BooleanParam)
}

/** `GET /v1/products`: every parameter of the specification's table, and no other. */
export const ListProductsQuery = Schema.Struct({ ...filterFields, ...pageFields }).annotations(strict)
export type ListProductsQuery = typeof ListProductsQuery.Type

/**
 * `GET /v1/products/facets`: the list's filters plus `facetLimit` and `includeEmpty`. The
 * list's sort and page parameters are accepted (a storefront sends one query string to both)
 * and ignored.
 */
export const FacetsQuery = Schema.Struct({
  ...filterFields,
  ...pageFields,
  facetLimit: Schema.optional(IntegerParam(1, 500)),
  includeEmpty: Schema.optional(BooleanParam)
}).annotations(strict)
export type FacetsQuery = typeof FacetsQuery.Type
