import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { caseKey } from "../../../core/catalog/Text.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))

/**
 * Brands and categories keep their name's case key (`caseKey`), which brand names are unique
 * by and name filters compare: SQLite's `lower()` folds only A to Z, and Postgres' depends on
 * the database's locale. A brand whose key an older brand of its organization already has
 * (names that only SQLite's `lower()` told apart) keeps a key made unique by its id.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["brands", "categories"]) {
    yield* sql.unsafe(`ALTER TABLE ${table} ADD COLUMN name_key text`)
    const rows = yield* sql`select id, organization_id, name from ${sql(table)} order by created_at, id`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Rows))
    )
    const seen = new Set<string>()
    for (const row of rows) {
      const key = caseKey(row.name)
      const unique = table === "brands" && seen.has(`${row.organizationId} ${key}`) ? `${key} ${row.id}` : key
      seen.add(`${row.organizationId} ${unique}`)
      yield* sql`update ${sql(table)} set name_key = ${unique} where id = ${row.id}`
    }
  }
  yield* sql.unsafe(`DROP INDEX brands_name`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX brands_name_key ON brands (organization_id, name_key)`)
})
