import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { APP_ROLE, CURRENT_ORG } from "../Rls.js"

/** The text columns lists and facets order by. */
const ORDERED: Readonly<Record<string, ReadonlyArray<string>>> = {
  products: ["name", "slug", "status"],
  categories: ["name", "slug"],
  brands: ["name", "name_key", "slug"],
  product_tags: ["tag"],
  attributes: ["code"],
  attribute_groups: ["code"],
  attribute_families: ["code"],
  modifiers: ["code"]
}

/**
 * Postgres orders text by the database's locale, which differs between clusters (`en_US`
 * puts `apple` before `Banana` and ignores `_` at first); SQLite and the facet counts in
 * memory order by code point. These columns take the C collation, which orders UTF-8 by code
 * point, so every database answers in one order; their indexes are rebuilt with it. The
 * search view reads every column of `products`, so it is made again around the change.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (!pg) return
  yield* sql.unsafe(`DROP VIEW tenant_products`)
  for (const [table, columns] of Object.entries(ORDERED)) {
    yield* sql.unsafe(`ALTER TABLE ${table} ${columns.map((c) => `ALTER COLUMN ${c} TYPE text COLLATE "C"`).join(", ")}`)
  }
  yield* sql.unsafe(`CREATE VIEW tenant_products AS SELECT * FROM products WHERE organization_id = ${CURRENT_ORG}`)
  yield* sql.unsafe(`REVOKE ALL ON tenant_products FROM ${APP_ROLE}`)
  yield* sql.unsafe(`GRANT SELECT ON tenant_products TO ${APP_ROLE}`)
})
