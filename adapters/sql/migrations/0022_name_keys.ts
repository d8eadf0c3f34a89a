import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { writeNameKeys } from "./NameKeys.js"

/**
 * Brands and categories keep their name's case key (`caseKey`), which brand names are unique
 * by and name filters compare: SQLite's `lower()` folds only A to Z, and Postgres' depends on
 * the database's locale. A brand whose key an older brand of its organization already has
 * (names that only SQLite's `lower()` told apart) keeps a key made unique by its id.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["brands", "categories"] as const) {
    yield* sql.unsafe(`ALTER TABLE ${table} ADD COLUMN name_key text`)
    yield* writeNameKeys(table)
  }
  yield* sql.unsafe(`DROP INDEX brands_name`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX brands_name_key ON brands (organization_id, name_key)`)
})
