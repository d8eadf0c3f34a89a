import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import { ProductStatus } from "../../core/products/Product.js"
import type { FacetCounts, FacetDimension, FacetOptions, ProductFilter } from "../../core/products/ProductFilter.js"
import { IntColumn, JsonColumn } from "./Columns.js"
import { productConditions } from "./ProductWhere.js"

const Label = JsonColumn(Schema.Record({ key: Schema.String, value: Schema.String }))
const FamilyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, code: Schema.String, label: Label, count: IntColumn })))
const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String, count: IntColumn })))
const StatusRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: ProductStatus, count: IntColumn })))
const CategoryRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ id: Schema.String, slug: Schema.String, name: Schema.String, count: IntColumn }))
)
const NamedRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, count: IntColumn })))
const ConnectorRows = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.NullOr(Schema.String), count: IntColumn }))
)
const CountRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn })))

const STATUSES: ReadonlyArray<ProductStatus> = ["draft", "active", "archived"]

/**
 * Facet counts: one grouped query per dimension with every other filter applied. With
 * `includeEmpty`, a dimension short of its cap is topped up with the organization's entities
 * that no matching product carries (count 0), by name.
 */
export const facetsOf = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  subtree: ReadonlyArray<string> | undefined,
  options: FacetOptions
): Effect.Effect<FacetCounts, unknown> =>
  Effect.gen(function*() {
    const where = (omit?: FacetDimension): Fragment => sql.and(productConditions(sql, organizationId, filter, subtree, omit))
    const caps = options.caps
    const notIn = (column: string, ids: ReadonlyArray<string>) => (ids.length === 0 ? sql`1 = 1` : sql`not ${sql.in(column, ids)}`)
    const topUp = <A extends { readonly count: number }>(
      found: ReadonlyArray<A>,
      cap: number,
      empties: (room: number) => Effect.Effect<ReadonlyArray<A>, unknown>
    ) => (options.includeEmpty && found.length < cap ? Effect.map(empties(cap - found.length), (e) => [...found, ...e]) : Effect.succeed(found))

    const [totalRow] = yield* sql`select cast(count(*) as integer) as n from products p where ${where()}`.pipe(Effect.flatMap(CountRows))

    const familiesFound = yield* sql`select f.id, f.code, f.label, cast(count(*) as integer) as count
      from products p join attribute_families f on f.id = p.family_id
      where ${where("families")} group by f.id, f.code, f.label order by count desc, f.code limit ${caps.families}`.pipe(Effect.flatMap(FamilyRows))
    const families = yield* topUp(familiesFound, caps.families, (room) =>
      sql`select f.id, f.code, f.label, 0 as count from attribute_families f
        where f.organization_id = ${organizationId} and f.entity_kind = 'product' and ${notIn("f.id", familiesFound.map((f) => f.id))}
        order by f.code limit ${room}`.pipe(Effect.flatMap(FamilyRows)))

    const statusFound = yield* sql`select p.status as value, cast(count(*) as integer) as count from products p
      where ${where("statuses")} group by p.status order by count desc, p.status`.pipe(Effect.flatMap(StatusRows))
    const statuses = options.includeEmpty
      ? [...statusFound, ...STATUSES.filter((s) => !statusFound.some((f) => f.value === s)).map((value) => ({ value, count: 0 }))]
      : statusFound

    const categoriesFound = filter.includeDescendants
      ? yield* sql`with recursive tree(ancestor, id, depth) as (
            select id, id, 0 from categories where organization_id = ${organizationId}
            union all
            select tree.ancestor, c.id, tree.depth + 1 from tree join categories c on c.parent_id = tree.id
            where c.organization_id = ${organizationId} and tree.depth < 1000
          )
          select c.id, c.slug, c.name, cast(count(distinct pc.product_id) as integer) as count
          from tree join categories c on c.id = tree.ancestor
            join product_categories pc on pc.category_id = tree.id
            join products p on p.id = pc.product_id
          where ${where("categories")} group by c.id, c.slug, c.name order by count desc, c.name limit ${caps.categories}`.pipe(
        Effect.flatMap(CategoryRows)
      )
      : yield* sql`select c.id, c.slug, c.name, cast(count(*) as integer) as count
          from product_categories pc join products p on p.id = pc.product_id join categories c on c.id = pc.category_id
          where ${where("categories")} group by c.id, c.slug, c.name order by count desc, c.name limit ${caps.categories}`.pipe(
        Effect.flatMap(CategoryRows)
      )
    const categories = yield* topUp(categoriesFound, caps.categories, (room) =>
      sql`select c.id, c.slug, c.name, 0 as count from categories c
        where c.organization_id = ${organizationId} and ${notIn("c.id", categoriesFound.map((c) => c.id))}
        order by c.name limit ${room}`.pipe(Effect.flatMap(CategoryRows)))

    const brandsFound = yield* sql`select b.id, b.name, cast(count(*) as integer) as count
      from products p join brands b on b.id = p.brand_id
      where ${where("brands")} group by b.id, b.name order by count desc, b.name limit ${caps.brands}`.pipe(Effect.flatMap(NamedRows))
    const brands = yield* topUp(brandsFound, caps.brands, (room) =>
      sql`select b.id, b.name, 0 as count from brands b
        where b.organization_id = ${organizationId} and ${notIn("b.id", brandsFound.map((b) => b.id))}
        order by b.name limit ${room}`.pipe(Effect.flatMap(NamedRows)))

    const connectors = yield* sql`select p.source_connector_id as id, k.name, cast(count(*) as integer) as count
      from products p left join connectors k on k.id = p.source_connector_id
      where ${where("connectors")} and p.source_connector_id is not null
      group by p.source_connector_id, k.name order by count desc, k.name limit ${caps.connectors}`.pipe(Effect.flatMap(ConnectorRows))

    const tags = yield* sql`select t.tag as value, cast(count(*) as integer) as count
      from product_tags t join products p on p.id = t.product_id
      where ${where("tags")} group by t.tag order by count desc, t.tag limit ${caps.tags}`.pipe(Effect.flatMap(ValueRows))

    return {
      total: totalRow?.n ?? 0,
      families,
      statuses,
      categories,
      brands,
      connectors,
      tags
    }
  })
