import { Effect, Option } from "effect"
import { canonicalTags } from "../catalog/Tags.js"
import { searchText } from "../catalog/Text.js"
import { millisecondBound } from "../shared/Calendar.js"
import { type Issue, ValidationFailed } from "../shared/Errors.js"
import type { FacetsQuery, ListProductsQuery } from "./ProductQuery.js"
import type { NumericRange, ProductFilter, ProductSort } from "./ProductFilter.js"
import { ProductRepository } from "./ProductRepository.js"

/** Attribute sort and filter work on these types only (money by amount_cents). */
const NUMERIC_TYPES: ReadonlySet<string> = new Set(["number", "decimal", "money"])

/** The product attribute `code` names, refused (never a silent fallback) unless it is numeric. */
const numericAttribute = (organizationId: string, code: string, param: string) =>
  Effect.gen(function*() {
    const repo = yield* ProductRepository
    const found = yield* repo.productAttribute(organizationId, code)
    if (Option.isNone(found)) {
      return yield* ValidationFailed.one([param], `no product attribute has the code ${code}`, "unknown_attribute")
    }
    if (!NUMERIC_TYPES.has(found.value.type)) {
      return yield* ValidationFailed.one(
        [param],
        `attribute ${code} is of type ${found.value.type}; only money, number and decimal attributes sort and filter`,
        "unsupported_attribute_type"
      )
    }
    return found.value.id
  })

const folded = (q: string | undefined): string | undefined => {
  if (q === undefined) return undefined
  const text = searchText([q]).trim()
  return text.length === 0 ? undefined : text
}

/** The filters of a list or facets query, validated against the organization's attributes. */
const filterOf = (organizationId: string, query: ListProductsQuery | FacetsQuery) =>
  Effect.gen(function*() {
    const hasBound = query.filterMin !== undefined || query.filterMax !== undefined
    if (hasBound && query.filterAttribute === undefined) {
      return yield* ValidationFailed.one(["filterAttribute"], "filterMin and filterMax need filterAttribute", "required")
    }
    let numeric: NumericRange | undefined
    if (query.filterAttribute !== undefined) {
      numeric = {
        attributeId: yield* numericAttribute(organizationId, query.filterAttribute, "filterAttribute"),
        min: query.filterMin,
        max: query.filterMax
      }
    }
    const tags = query.tag === undefined ? undefined : canonicalTags(query.tag)
    const filter: ProductFilter = {
      status: query.status,
      search: folded(query.q),
      slug: query.slug,
      familyId: query.familyId,
      categoryId: query.categoryId,
      includeDescendants: query.includeDescendants ?? false,
      brand: query.brand,
      brandId: query.brandId,
      ids: query.ids,
      tags: tags !== undefined && tags.length > 0 ? tags : undefined,
      connectorId: query.connectorId,
      updatedSince: query.updatedSince === undefined ? undefined : millisecondBound(query.updatedSince),
      numeric
    }
    return filter
  })

/** The order of a list query: relevance by default when searching, else creation order. */
const sortOf = (organizationId: string, query: ListProductsQuery) =>
  Effect.gen(function*() {
    const dir = query.sortDir ?? "asc"
    const issues: Array<Issue> = []
    const by = query.sortBy ?? (query.sortAttribute !== undefined ? "attribute" : folded(query.q) !== undefined ? "relevance" : "createdAt")
    if (query.sortAttribute !== undefined && by !== "attribute") {
      issues.push({ path: ["sortAttribute"], message: "sortAttribute needs sortBy=attribute", code: "invalid" })
    }
    if (by === "attribute" && query.sortAttribute === undefined) {
      issues.push({ path: ["sortAttribute"], message: "sortBy=attribute needs sortAttribute", code: "required" })
    }
    if (issues.length > 0) return yield* ValidationFailed.of(issues)
    if (by === "attribute" && query.sortAttribute !== undefined) {
      const attributeId = yield* numericAttribute(organizationId, query.sortAttribute, "sortAttribute")
      const sort: ProductSort = { by, attributeId, dir }
      return sort
    }
    const sort: ProductSort = by === "relevance" ? { by, dir } : { by: by === "attribute" ? "createdAt" : by, dir }
    return sort
  })

/**
 * The filters and the order of a list or facets query, every refused parameter in one answer:
 * a `filterAttribute` and a `sortAttribute` that both name no numeric attribute are two issues.
 */
export const filterAndSortOf = (organizationId: string, query: ListProductsQuery | FacetsQuery) =>
  Effect.all([filterOf(organizationId, query), sortOf(organizationId, query)], { mode: "validate" }).pipe(
    Effect.mapError((failures) => ValidationFailed.of(failures.flatMap((f) => (Option.isSome(f) ? f.value.issues : []))))
  )
