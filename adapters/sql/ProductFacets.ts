import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { caseKey } from "../../core/catalog/Text.js"
import { ProductStatus } from "../../core/products/Product.js"
import type { FacetCounts, FacetDimension, FacetOptions, ProductFilter } from "../../core/products/ProductFilter.js"
import { IntColumn, JsonColumn } from "./Columns.js"
import type { FacetIndex } from "./ProductFacetIndex.js"
import { linkConditions, productConditions } from "./ProductWhere.js"
import { productsOf } from "./ProductSearch.js"
import type { CategoryNode, FacetTallies, Group } from "./TenantFacets.js"
import { byCodePoint } from "../../core/shared/CodePointOrder.js"

const Label = JsonColumn(Schema.Record({ key: Schema.String, value: Schema.String }))
const FamilyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, code: Schema.String, label: Label, count: IntColumn })))
const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String, count: IntColumn })))
const CategoryRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ id: Schema.String, slug: Schema.String, name: Schema.String, count: IntColumn }))
)
const NamedRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, count: IntColumn })))
const ConnectorRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.NullOr(Schema.String), count: IntColumn }))
)

/** In value order: the order of ties, and so of the empty statuses `includeEmpty` adds. */
const STATUSES: ReadonlyArray<ProductStatus> = ["active", "archived", "draft"]

const GroupRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({
    familyId: Schema.String,
    status: ProductStatus,
    brandId: Schema.NullOr(Schema.String),
    connectorId: Schema.NullOr(Schema.String),
    count: IntColumn
  }))
)
const IdRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))

/** Counts per key, largest first, ties by `order` and then by key, at most `cap`. */
const top = (counts: Map<string, number>, cap: number, order: (id: string) => string) =>
  [...counts].sort((a, b) => b[1] - a[1] || byCodePoint(order(a[0]), order(b[0])) || byCodePoint(a[0], b[0])).slice(0, cap)

const add = (counts: Map<string, number>, key: string | null, n: number) => {
  if (key !== null) counts.set(key, (counts.get(key) ?? 0) + n)
}

/** How a link-table count is narrowed to the products matching the other filters. */
interface Scope {
  /** The products and the link table, for `from`. */
  readonly from: Fragment
  /**
   * The organization's links, or the matching products' links. Joined, the organization is
   * named on the products only: a link table's organization index must never look like a
   * way to find one product's links (without statistics SQLite would take it).
   */
  readonly where: Fragment
}

const TreeRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ id: Schema.String, parentId: Schema.NullOr(Schema.String), slug: Schema.String, name: Schema.String }))
)
const categoryTree = (sql: SqlClient.SqlClient, organizationId: string) =>
  sql`select id, parent_id, slug, name from categories where organization_id = ${organizationId}`.pipe(Effect.flatMap(TreeRows))

/**
 * The products that pass the filters a facet copy does not hold (search, slug, ids,
 * `updatedSince`, an attribute range), or `undefined` when none applies.
 */
const outsideTheCopy = (sql: SqlClient.SqlClient, organizationId: string, filter: ProductFilter) => {
  const { ids, numeric, search, slug, updatedSince } = filter
  if ([ids, numeric, search, slug, updatedSince].every((f) => f === undefined)) return Effect.succeed(undefined)
  const rest: ProductFilter = { includeDescendants: false, ids, numeric, search, slug, updatedSince }
  return sql`select p.id from ${productsOf(sql, rest)} where ${sql.and(productConditions(sql, organizationId, rest, undefined))}`.pipe(
    Effect.flatMap(IdRows),
    Effect.map((rows) => rows.map((r) => r.id))
  )
}

/** Categories by count, largest first, ties by name and then by id (names repeat), at most `cap`; those not in `tree` or counting nothing left out. */
const rankCategories = (counts: ReadonlyMap<string, number>, tree: ReadonlyArray<CategoryNode>, cap: number) => {
  const byId = new Map(tree.map((c) => [c.id, c]))
  return [...counts]
    .flatMap(([id, count]) => {
      const c = byId.get(id)
      return c === undefined || count <= 0 ? [] : [{ id, slug: c.slug, name: c.name, count }]
    })
    .sort((a, b) => b.count - a.count || byCodePoint(a.name, b.name) || byCodePoint(a.id, b.id))
    .slice(0, cap)
}
/** Products per category they are filed in directly, grouped on the link table alone (a join per link costs more than the count). */
const directCounts = (sql: SqlClient.SqlClient, scope: Scope) =>
  sql`select pc.category_id as id, cast(count(*) as integer) as count from ${scope.from}
    where ${scope.where} group by pc.category_id`

const DirectRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, count: IntColumn })))
const LinkRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ productId: Schema.String, categoryId: Schema.String })))

/** Products in several categories hold a link past position 0 (see the partial index product_categories_later). */
const laterLinks = (sql: SqlClient.SqlClient, organizationId: string) =>
  sql`select m.product_id from product_categories m where m.organization_id = ${organizationId} and m.position > 0`

/**
 * Category counts over whole subtrees: each product counted once under every category that
 * holds it or one of its descendants. Counted per category in SQL and rolled up the tree
 * here; only products filed in several categories are read one by one, so that a product in
 * two categories of one subtree still counts once there.
 */
const subtreeCounts = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  scope: Scope,
  tree: ReadonlyArray<CategoryNode>,
  cap: number,
  anyMulti: boolean
) =>
  Effect.gen(function*() {
    const direct = yield* directCounts(sql, scope).pipe(Effect.flatMap(DirectRows))
    const multi = !anyMulti ? [] : yield* sql`select pc.product_id, pc.category_id from ${scope.from}
      where ${scope.where} and pc.product_id in (${laterLinks(sql, organizationId)})`.pipe(Effect.flatMap(LinkRows))

    const parentOf = new Map(tree.map((c) => [c.id, c.parentId]))
    const lineage = (id: string): Set<string> => {
      const out = new Set<string>()
      for (let at: string | null | undefined = id; at != null && !out.has(at); at = parentOf.get(at)) out.add(at)
      return out
    }
    const counts = new Map<string, number>()
    for (const d of direct) for (const a of lineage(d.id)) counts.set(a, (counts.get(a) ?? 0) + d.count)
    const categoriesOf = new Map<string, Array<string>>()
    for (const l of multi) categoriesOf.set(l.productId, [...(categoriesOf.get(l.productId) ?? []), l.categoryId])
    for (const categoryIds of categoriesOf.values()) {
      const seen = new Map<string, number>()
      for (const c of categoryIds) for (const a of lineage(c)) seen.set(a, (seen.get(a) ?? 0) + 1)
      for (const [a, k] of seen) if (k > 1) counts.set(a, (counts.get(a) ?? 0) - (k - 1))
    }
    return rankCategories(counts, tree, cap)
  })

/**
 * Facet counts, each dimension with every other filter applied. Family, status, brand and
 * connector come from one grouped scan of a covering index (the products', or the category
 * links' under a category filter) with their own four filters left out; each is then counted
 * here with the other three applied. Tags and categories are counted from their link tables,
 * which the category links' copy of those four columns spares looking each product up where
 * the filter needs no more. With `includeEmpty`, a dimension short of its cap is topped
 * up with the organization's entities no matching product carries (count 0), by name.
 */
export const facetsOf = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  subtree: ReadonlyArray<string> | undefined,
  options: FacetOptions,
  index?: FacetIndex
): Effect.Effect<FacetCounts, unknown> =>
  Effect.gen(function*() {
    // Without a copy, each dimension's query would check the search on every text again (and
    // the near misses with a regular expression): it is checked once, and its matches counted.
    if (index === undefined && filter.search !== undefined) {
      const ids = yield* outsideTheCopy(sql, organizationId, filter)
      const matched: ProductFilter = { ...filter, search: undefined, slug: undefined, updatedSince: undefined, numeric: undefined, ids }
      return yield* facetsOf(sql, organizationId, matched, subtree, options)
    }
    const caps = options.caps
    const scalar: ReadonlyArray<FacetDimension> = ["families", "statuses", "brands", "connectors"]
    const notIn = (column: string, ids: ReadonlyArray<string>) => (ids.length === 0 ? sql`1 = 1` : sql`not ${sql.in(column, ids)}`)
    const topUp = <A extends { readonly count: number }>(
      found: ReadonlyArray<A>,
      cap: number,
      empties: (room: number) => Effect.Effect<ReadonlyArray<A>, unknown>
    ) => (options.includeEmpty && found.length < cap ? Effect.map(empties(cap - found.length), (e) => [...found, ...e]) : Effect.succeed(found))

    // The brand filter by slug or name, as the ids it names.
    const namedBrands = filter.brand === undefined ? undefined : new Set(
      (yield* sql`select id from brands where organization_id = ${organizationId}
        and (slug = ${filter.brand} or name_key = ${caseKey(filter.brand)})`.pipe(Effect.flatMap(IdRows))).map((r) => r.id)
    )
    const matches = {
      families: (g: Group) => filter.familyId === undefined || g.familyId === filter.familyId,
      statuses: (g: Group) => filter.status === undefined || g.status === filter.status,
      brands: (g: Group) =>
        (filter.brandId === undefined || g.brandId === filter.brandId) &&
        (namedBrands === undefined || (g.brandId !== null && namedBrands.has(g.brandId))),
      connectors: (g: Group) => filter.connectorId === undefined || g.connectorId === filter.connectorId
    }
    const matchesAll = (g: Group) => matches.families(g) && matches.statuses(g) && matches.brands(g) && matches.connectors(g)

    // The tree names the copy's categories and rolls subtree counts up.
    const tree = index !== undefined || filter.includeDescendants ? yield* categoryTree(sql, organizationId) : []
    const tallies: FacetTallies | undefined = index === undefined
      ? undefined
      : yield* index.tallies(organizationId, { filter, accepts: matchesAll, subtree, tree, only: yield* outsideTheCopy(sql, organizationId, filter) })
    // While the copy is being made, the indexes count.
    if (index !== undefined && tallies === undefined) return yield* facetsOf(sql, organizationId, filter, subtree, options)

    // Most catalogs file each product in one category, which one probe tells; then a category
    // filter's products are its links, and the links carry what the facets count.
    const anyMulti = tallies === undefined && (yield* sql`${laterLinks(sql, organizationId)} limit 1`).length > 0
    const onLinks = (dimension: FacetDimension | ReadonlyArray<FacetDimension>) =>
      filter.categoryId === undefined || anyMulti ? undefined : linkConditions(sql, organizationId, filter, subtree, dimension)

    const linkGroups = onLinks(scalar)
    const groups = tallies !== undefined ? tallies.groups : yield* (linkGroups !== undefined
      ? sql`select pc.family_id, pc.status, pc.brand_id, pc.source_connector_id as connector_id,
          cast(count(*) as integer) as count
        from product_categories pc where ${sql.and(linkGroups)}
        group by pc.family_id, pc.status, pc.brand_id, pc.source_connector_id`
      : sql`select p.family_id, p.status, p.brand_id, p.source_connector_id as connector_id,
          cast(count(*) as integer) as count
        from ${productsOf(sql, filter)} where ${sql.and(productConditions(sql, organizationId, filter, subtree, scalar))}
        group by p.family_id, p.status, p.brand_id, p.source_connector_id`).pipe(Effect.flatMap(GroupRows))

    let total = 0
    const familyCounts = new Map<string, number>()
    const statusCounts = new Map<string, number>()
    const brandCounts = new Map<string, number>()
    const connectorCounts = new Map<string, number>()
    // Each dimension counts the groups the other three dimensions' filters accept.
    for (const g of groups) {
      const [f, s, b, c] = [matches.families(g), matches.statuses(g), matches.brands(g), matches.connectors(g)]
      if (f && s && b && c) total += g.count
      if (s && b && c) add(familyCounts, g.familyId, g.count)
      if (f && b && c) add(statusCounts, g.status, g.count)
      if (f && s && c) add(brandCounts, g.brandId, g.count)
      if (f && s && b) add(connectorCounts, g.connectorId, g.count)
    }

    const familyRows = familyCounts.size === 0 ? [] : yield* sql`select f.id, f.code, f.label, 0 as count from attribute_families f
      where ${sql.in("f.id", [...familyCounts.keys()])}`.pipe(Effect.flatMap(FamilyRows))
    const familyById = new Map(familyRows.map((f) => [f.id, f]))
    const familiesFound = top(familyCounts, caps.families, (id) => familyById.get(id)?.code ?? id).flatMap(([id, count]) => {
      const f = familyById.get(id)
      return f === undefined ? [] : [{ ...f, count }]
    })
    const families = yield* topUp(familiesFound, caps.families, (room) =>
      sql`select f.id, f.code, f.label, 0 as count from attribute_families f
        where f.organization_id = ${organizationId} and f.entity_kind = 'product' and ${notIn("f.id", familiesFound.map((f) => f.id))}
        order by f.code limit ${room}`.pipe(Effect.flatMap(FamilyRows)))

    const statusFound = top(statusCounts, caps.statuses, (s) => s).flatMap(([value, count]) =>
      STATUSES.filter((s) => s === value).map((s) => ({ value: s, count }))
    )
    const statuses = options.includeEmpty
      ? [...statusFound, ...STATUSES.filter((s) => !statusCounts.has(s)).map((value) => ({ value, count: 0 }))].slice(0, caps.statuses)
      : statusFound

    const brandRows = brandCounts.size === 0 ? [] : yield* sql`select b.id, b.name, 0 as count from brands b
      where ${sql.in("b.id", [...brandCounts.keys()])}`.pipe(Effect.flatMap(NamedRows))
    const brandById = new Map(brandRows.map((b) => [b.id, b]))
    const brandsFound = top(brandCounts, caps.brands, (id) => brandById.get(id)?.name ?? id).flatMap(([id, count]) => {
      const b = brandById.get(id)
      return b === undefined ? [] : [{ ...b, count }]
    })
    const brands = yield* topUp(brandsFound, caps.brands, (room) =>
      sql`select b.id, b.name, 0 as count from brands b
        where b.organization_id = ${organizationId} and ${notIn("b.id", brandsFound.map((b) => b.id))}
        order by b.name limit ${room}`.pipe(Effect.flatMap(NamedRows)))

    const connectorRows = connectorCounts.size === 0 ? [] : yield* sql`select k.id, k.name, 0 as count from connectors k
      where ${sql.in("k.id", [...connectorCounts.keys()])}`.pipe(Effect.flatMap(ConnectorRows))
    const connectorName = new Map(connectorRows.map((k) => [k.id, k.name]))
    const connectors = top(connectorCounts, caps.connectors, (id) => connectorName.get(id) ?? "").map(([id, count]) => ({
      id,
      name: connectorName.get(id) ?? null,
      count
    }))

    // Without other filters the link tables answer alone, from their organization indexes;
    // with them, a join to the products (a join plans well on both databases, an IN over the
    // products does not on Postgres under row-level security). The products come first: SQLite
    // keeps a cross join's order, and walking the matching products' links by product id beats
    // looking every link's product up (Postgres orders the join itself).
    const scoped = (dimension: FacetDimension, link: string, alias: string): Scope => {
      const conditions = productConditions(sql, organizationId, filter, subtree, dimension)
      return conditions.length === 1
        ? { from: sql`${sql.literal(link)} ${sql.literal(alias)}`, where: sql`${sql.literal(alias)}.organization_id = ${organizationId}` }
        : {
          from: sql`${productsOf(sql, filter)} cross join ${sql.literal(link)} ${sql.literal(alias)}`,
          where: sql.and([sql`${sql.literal(alias)}.product_id = p.id`, ...conditions])
        }
    }
    // Category links counted per category are right however many links a product has.
    const categoryLinks = linkConditions(sql, organizationId, filter, subtree, "categories")
    const categoryScope: Scope = categoryLinks !== undefined
      ? { from: sql`product_categories pc`, where: sql.and(categoryLinks) }
      : scoped("categories", "product_categories", "pc")

    const categoriesFound = tallies !== undefined
      ? rankCategories(tallies.categories, tree, caps.categories)
      : filter.includeDescendants
      ? yield* subtreeCounts(sql, organizationId, categoryScope, tree, caps.categories, anyMulti)
      : yield* sql`select c.id, c.slug, c.name, d.count
        from (${directCounts(sql, categoryScope)}) d join categories c on c.id = d.id
        order by d.count desc, c.name, c.id limit ${caps.categories}`.pipe(Effect.flatMap(CategoryRows))
    const categories = yield* topUp(categoriesFound, caps.categories, (room) =>
      sql`select c.id, c.slug, c.name, 0 as count from categories c
        where c.organization_id = ${organizationId} and ${notIn("c.id", categoriesFound.map((c) => c.id))}
        order by c.name, c.id limit ${room}`.pipe(Effect.flatMap(CategoryRows)))

    const tagLinks = tallies === undefined ? onLinks("tags") : undefined
    const tagScope: Scope = tagLinks !== undefined
      ? { from: sql`product_categories pc cross join product_tags t`, where: sql.and([sql`t.product_id = pc.product_id`, ...tagLinks]) }
      : scoped("tags", "product_tags", "t")
    const tags = tallies !== undefined
      ? [...tallies.tags].map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || byCodePoint(a.value, b.value)).slice(0, caps.tags)
      : yield* sql`select t.tag as value, cast(count(*) as integer) as count from ${tagScope.from}
      where ${tagScope.where}
      group by t.tag order by count desc, t.tag limit ${caps.tags}`.pipe(Effect.flatMap(ValueRows))

    return { total, families, statuses, categories, brands, connectors, tags }
  })
