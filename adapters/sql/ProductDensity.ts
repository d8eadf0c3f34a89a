import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { ProductFilter } from "../../core/products/ProductFilter.js"
import { IntColumn } from "./Columns.js"
import { idIn } from "./IdLists.js"

/**
 * Which link-table filters of a page query match many products. A sparse filter is best
 * answered from its link table (look up the few products it names, then order them); a dense
 * one by walking the products in page order and probing the link table per product, which
 * stops as soon as the page is full. SQLite cannot tell the two apart for a given value, so it
 * is asked, with counts that stop at `DENSE`; Postgres plans semi-joins from its statistics.
 */
export interface DenseFilters {
  readonly categories: boolean
  readonly tags: ReadonlySet<string>
  readonly numeric: boolean
  /**
   * `updatedSince` matches few products. Checked on the row it costs nothing while a page walks
   * the products in its order and finds matches at once, but when few match (reconciling after
   * a short outage) that walk reads every product of the organization; then the matches are
   * looked up by their update time instead.
   */
  readonly fewUpdated: boolean
}

export const SPARSE: DenseFilters = { categories: false, tags: new Set(), numeric: false, fewUpdated: false }

/** Matches beyond which a walk in page order finds a page sooner than the lookups would. */
const DENSE = 2000

const CountRow = Schema.decodeUnknown(Schema.Array(Schema.Record({ key: Schema.String, value: IntColumn })))

export const denseFilters = (
  sql: SqlClient.SqlClient,
  organizationId: string,
  filter: ProductFilter,
  subtree: ReadonlyArray<string> | undefined
): Effect.Effect<DenseFilters, unknown> =>
  sql.onDialectOrElse({
    pg: () => Effect.succeed(SPARSE),
    orElse: () => {
      const probes: Array<readonly [string, Fragment]> = []
      const capped = (inner: Fragment) => sql`(select count(*) from (${inner} limit ${DENSE}))`
      if (filter.categoryId !== undefined) {
        probes.push(["categories", capped(sql`select 1 from product_categories
          where organization_id = ${organizationId} and ${idIn(sql, "category_id", subtree ?? [filter.categoryId])}`)])
      }
      for (const [i, tag] of (filter.tags ?? []).entries()) {
        probes.push([`tag${i}`, capped(sql`select 1 from product_tags where organization_id = ${organizationId} and tag = ${tag}`)])
      }
      const n = filter.numeric
      if (n !== undefined) {
        probes.push(["numeric", capped(sql`select 1 from product_numbers where ${
          sql.and([
            sql`attribute_id = ${n.attributeId}`,
            ...(n.min !== undefined ? [sql`value >= ${n.min}`] : []),
            ...(n.max !== undefined ? [sql`value <= ${n.max}`] : [])
          ])
        }`)])
      }
      if (filter.updatedSince !== undefined) {
        probes.push(["updated", capped(sql`select 1 from products
          where organization_id = ${organizationId} and updated_at >= ${filter.updatedSince}`)])
      }
      if (probes.length === 0) return Effect.succeed(SPARSE)
      const columns = sql.join(", ", false)(probes.map(([name, probe]) => sql`${probe} as ${sql.literal(name)}`))
      return sql`select ${columns}`.pipe(
        Effect.flatMap(CountRow),
        Effect.map(([row]) => {
          const dense = (name: string) => (row?.[name] ?? 0) >= DENSE
          return {
            categories: dense("categories"),
            tags: new Set((filter.tags ?? []).filter((_, i) => dense(`tag${i}`))),
            numeric: dense("numeric"),
            fewUpdated: filter.updatedSince !== undefined && !dense("updated")
          }
        })
      )
    }
  })
