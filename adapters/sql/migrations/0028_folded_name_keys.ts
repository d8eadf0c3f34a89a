import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { writeNameKeys } from "./NameKeys.js"

/**
 * Name keys fold letters whose upper-case spelling differs (`caseKey`), so brands named
 * `Straße` and `STRASSE` are one name. Keys are cleared first, so that no new key meets an old one.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["brands", "categories"] as const) {
    yield* sql`update ${sql(table)} set name_key = id`
    yield* writeNameKeys(table)
  }
})
