import { Context, type Effect, type Option } from "effect"
import type { AttributeType } from "../schema/AttributeValues.js"
import type { Conflict } from "../shared/Errors.js"
import type { ProductJson, ProductRecord } from "./Product.js"
import type { FacetCounts, FacetOptions, ProductFilter, ProductPage, ProductSort } from "./ProductFilter.js"

/** What the storefront queries read besides the record: derived on every write, stored with it. */
export interface ProductIndex {
  /** Numbers at the default scope of number, decimal and money (amount_cents) attributes. */
  readonly numbers: ReadonlyArray<{ readonly attributeId: string; readonly value: number }>
  /** Name, slug and attribute text, folded (see `searchText`). */
  readonly searchText: string
  /** The name alone, folded: relevance ranks the products whose name holds every word first. */
  readonly nameText: string
}

/**
 * A list item as JSON text assembled by the store: `ProductListItem` without `thumbnailUrl`,
 * which the product's media decide, and with its stored values spliced in as they are.
 */
interface ProductItemJson {
  readonly id: string
  readonly json: string
}

export interface ProductWrite {
  readonly product: ProductRecord
  readonly index: ProductIndex
}

/** Products and their storefront queries. Callers run these inside `UnitOfWork.tenant`. */
export class ProductRepository extends Context.Tag("catalog/ProductRepository")<ProductRepository, {
  /** Inserts every product in one batch; fails with Conflict (and inserts none) when a slug is taken. */
  readonly insert: (writes: ReadonlyArray<ProductWrite>) => Effect.Effect<void, Conflict>
  /** Rewrites the product and its index; fails with Conflict when the new slug is taken. */
  readonly update: (write: ProductWrite) => Effect.Effect<void, Conflict>
  /** Answers whether it existed. */
  readonly delete: (organizationId: string, id: string) => Effect.Effect<boolean>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<ProductRecord>>
  /** The product as the JSON text of `Product`, without decoding its stored values. */
  readonly findJson: (organizationId: string, id: string) => Effect.Effect<Option.Option<ProductJson>>
  /**
   * Holds the rows of the products among `ids` until the transaction ends, taken in id order,
   * as every write that holds several products' rows takes them (see `UnitOfWork.lock`).
   */
  readonly hold: (organizationId: string, ids: ReadonlyArray<string>) => Effect.Effect<void>
  /** The products among `ids` that exist, in no particular order. */
  readonly findByIds: (organizationId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ProductRecord>>
  /** Which of `slugs` are taken in the organization. */
  readonly slugsTaken: (organizationId: string, slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** One page; `total` (one COUNT) only when asked. */
  readonly list: (
    organizationId: string,
    filter: ProductFilter,
    sort: ProductSort,
    page: { readonly limit: number; readonly offset: number; readonly withTotal: boolean }
  ) => Effect.Effect<ProductPage>
  /** The same page as `list`, each product as JSON text. */
  readonly listJson: (
    organizationId: string,
    filter: ProductFilter,
    sort: ProductSort,
    page: { readonly limit: number; readonly offset: number; readonly withTotal: boolean }
  ) => Effect.Effect<ProductPage<ProductItemJson>>
  readonly facets: (organizationId: string, filter: ProductFilter, options: FacetOptions) => Effect.Effect<FacetCounts>
  /** The product attribute with this code, for sorting and filtering. */
  readonly productAttribute: (
    organizationId: string,
    code: string
  ) => Effect.Effect<Option.Option<{ readonly id: string; readonly type: AttributeType }>>
}>() {}
