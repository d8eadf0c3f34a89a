import type { ProductRecord, ProductStatus } from "./Product.js"

/** Bounds on a numeric attribute at the default scope; a product without the value never matches. */
export interface NumericRange {
  readonly attributeId: string
  readonly min: number | undefined
  readonly max: number | undefined
}

/** The list's filters, validated and normalized (tags canonical, search text folded). */
export interface ProductFilter {
  readonly status?: ProductStatus | undefined
  /** Folded words (see `searchText`), never empty. */
  readonly search?: string | undefined
  readonly slug?: string | undefined
  readonly familyId?: string | undefined
  readonly categoryId?: string | undefined
  /** With `categoryId`, the category's whole subtree; in the categories facet, count subtrees. */
  readonly includeDescendants: boolean
  /** A brand's slug, or its name ignoring case. */
  readonly brand?: string | undefined
  readonly brandId?: string | undefined
  readonly ids?: ReadonlyArray<string> | undefined
  /** Canonical tags; a product must carry all of them. */
  readonly tags?: ReadonlyArray<string> | undefined
  readonly connectorId?: string | undefined
  /** ISO 8601 UTC; products updated at or after it. */
  readonly updatedSince?: string | undefined
  readonly numeric?: NumericRange | undefined
}

type SortDir = "asc" | "desc"

/** The list's order. Ties break by id in the same direction; products without the attribute come last. */
export type ProductSort =
  | { readonly by: "name" | "slug" | "status" | "updatedAt" | "createdAt"; readonly dir: SortDir }
  | { readonly by: "relevance"; readonly dir: SortDir }
  | { readonly by: "attribute"; readonly attributeId: string; readonly dir: SortDir }

export interface ProductPage<A = ProductRecord> {
  readonly items: ReadonlyArray<A>
  readonly hasMore: boolean
  readonly total?: number | undefined
}

/** The facet dimensions; each is counted with every other filter applied and its own left out. */
export type FacetDimension = "families" | "statuses" | "categories" | "brands" | "connectors" | "tags"

export interface FacetOptions {
  readonly caps: Readonly<Record<FacetDimension, number>>
  /** Also list families, categories and brands that no matching product carries. */
  readonly includeEmpty: boolean
}

export interface FacetCounts {
  readonly total: number
  readonly families: ReadonlyArray<{ readonly id: string; readonly code: string; readonly label: Readonly<Record<string, string>>; readonly count: number }>
  readonly statuses: ReadonlyArray<{ readonly value: ProductStatus; readonly count: number }>
  readonly categories: ReadonlyArray<{ readonly id: string; readonly slug: string; readonly name: string; readonly count: number }>
  readonly brands: ReadonlyArray<{ readonly id: string; readonly name: string; readonly count: number }>
  readonly connectors: ReadonlyArray<{ readonly id: string; readonly name: string | null; readonly count: number }>
  readonly tags: ReadonlyArray<{ readonly value: string; readonly count: number }>
}
