import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `q` matches substrings and near misses, which the `pg_trgm` index serves; the whole-word
 * `tsvector` answered no query and only cost every product write its upkeep.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (!pg) return
  yield* sql.unsafe(`DROP INDEX products_search_vector`)
  yield* sql.unsafe(`ALTER TABLE products DROP COLUMN search_vector`)
})
