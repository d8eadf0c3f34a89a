import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { caseKey } from "../../core/catalog/Text.js"
import type { FacetDimension, ProductFilter } from "../../core/products/ProductFilter.js"
import { idIn } from "./IdLists.js"
import { type DenseFilters, SPARSE } from "./ProductDensity.js"
import { searchOf } from "./ProductSearch.js"

const omitter = (omitted: FacetDimension | ReadonlyArray<FacetDimension>) => {
  const skip = new Set(typeof omitted === "string" ? [omitted] : omitted)
  return (dimension: FacetDimension) => skip.has(dimension)
}

/**
 * The filters on the product's family, status, brand and connector, over `alias`: the
 * products, or the category links, which carry a copy of those columns.
 */
const ownColumnConditions = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  alias: "p" | "pc",
  omit: (dimension: FacetDimension) => boolean
): ReadonlyArray<Fragment> => {
  const column = (name: string) => sql.literal(`${alias}.${name}`)
  const c: Array<Fragment> = []
  if (filter.status !== undefined && !omit("statuses")) c.push(sql`${column("status")} = ${filter.status}`)
  if (filter.familyId !== undefined && !omit("families")) c.push(sql`${column("family_id")} = ${filter.familyId}`)
  if (filter.brand !== undefined && !omit("brands")) {
    c.push(sql`${column("brand_id")} in (select b.id from brands b where b.organization_id = ${organizationId}
      and (b.slug = ${filter.brand} or b.name_key = ${caseKey(filter.brand)}))`)
  }
  if (filter.brandId !== undefined && !omit("brands")) c.push(sql`${column("brand_id")} = ${filter.brandId}`)
  if (filter.connectorId !== undefined && !omit("connectors")) c.push(sql`${column("source_connector_id")} = ${filter.connectorId}`)
  return c
}

/**
 * The conditions of a product query over `products p`, every filter but those of the
 * `omitted` facet dimensions (a dimension is counted without its own filter). `subtree` is the category filter's ids when
 * it covers descendants. A `dense` link-table filter is probed per product (see DenseFilters).
 */
export const productConditions = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  subtree: ReadonlyArray<string> | undefined,
  omitted: FacetDimension | ReadonlyArray<FacetDimension> = [],
  dense: DenseFilters = SPARSE
): ReadonlyArray<Fragment> => {
  const omit = omitter(omitted)
  const c: Array<Fragment> = [sql`p.organization_id = ${organizationId}`, ...ownColumnConditions(sql, organizationId, filter, "p", omit)]
  if (filter.search !== undefined) c.push(searchOf(sql, filter.search).where)
  if (filter.slug !== undefined) c.push(sql`p.slug = ${filter.slug}`)
  if (filter.categoryId !== undefined && !omit("categories")) {
    const ids = idIn(sql, "pc.category_id", subtree ?? [filter.categoryId])
    // Probing one product's links, SQLite would otherwise seek (category, product) once per
    // category of the subtree; `+` leaves it one seek by product and a check of its few links.
    const linkedTo = sql.onDialectOrElse({ sqlite: () => sql`+${ids}`, orElse: () => ids })
    c.push(
      dense.categories
        ? sql`exists (select 1 from product_categories pc where pc.product_id = p.id and ${linkedTo})`
        : sql`p.id in (select pc.product_id from product_categories pc where ${ids})`
    )
  }
  if (filter.ids !== undefined) c.push(filter.ids.length === 0 ? sql`1 = 0` : idIn(sql, "p.id", filter.ids))
  if (filter.tags !== undefined && !omit("tags")) {
    for (const tag of filter.tags) {
      c.push(
        dense.tags.has(tag)
          ? sql`exists (select 1 from product_tags t where t.product_id = p.id and t.tag = ${tag})`
          : sql`p.id in (select t.product_id from product_tags t where t.organization_id = ${organizationId} and t.tag = ${tag})`
      )
    }
  }
  if (filter.updatedSince !== undefined) {
    c.push(
      dense.fewUpdated
        ? sql`p.id in (select u.id from products u where u.organization_id = ${organizationId} and u.updated_at >= ${filter.updatedSince})`
        : sql`p.updated_at >= ${filter.updatedSince}`
    )
  }
  if (filter.numeric !== undefined) {
    const n = filter.numeric
    const bounds = sql.and([
      sql`n.attribute_id = ${n.attributeId}`,
      ...(n.min !== undefined ? [sql`n.value >= ${n.min}`] : []),
      ...(n.max !== undefined ? [sql`n.value <= ${n.max}`] : [])
    ])
    c.push(
      dense.numeric
        ? sql`exists (select 1 from product_numbers n where n.product_id = p.id and ${bounds})`
        : sql`p.id in (select n.product_id from product_numbers n where ${bounds})`
    )
  }
  return c
}

/**
 * The conditions over the category links `pc` alone, read from the product columns every link
 * carries (family, status, brand, connector), or undefined when the filter needs more of the
 * product than those. Under a category filter a product filed in several of its categories
 * has one link each: count links as products only where every product has one link.
 */
export const linkConditions = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  subtree: ReadonlyArray<string> | undefined,
  omitted: FacetDimension | ReadonlyArray<FacetDimension> = []
): ReadonlyArray<Fragment> | undefined => {
  const omit = omitter(omitted)
  const beyondLinks = filter.search !== undefined || filter.slug !== undefined || filter.ids !== undefined ||
    filter.updatedSince !== undefined || filter.numeric !== undefined || (filter.tags !== undefined && !omit("tags"))
  if (beyondLinks) return undefined
  const c: Array<Fragment> = [sql`pc.organization_id = ${organizationId}`, ...ownColumnConditions(sql, organizationId, filter, "pc", omit)]
  if (filter.categoryId !== undefined && !omit("categories")) c.push(idIn(sql, "pc.category_id", subtree ?? [filter.categoryId]))
  return c
}
