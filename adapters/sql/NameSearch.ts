import type { SqlClient } from "@effect/sql"
import { caseKey } from "../../core/catalog/Text.js"

/**
 * Rows whose `name_key` or `slug` holds `q`, ignoring case in every script. A plain substring
 * test, not a LIKE pattern: `%` and `_` match themselves, and a `q` of any length is taken
 * (SQLite refuses a LIKE pattern over 50,000 bytes). Both columns are lower-case, as the key is.
 */
export const nameOrSlugHolds = (sql: SqlClient.SqlClient, q: string) => {
  const key = caseKey(q)
  return sql.onDialectOrElse({
    pg: () => sql`(strpos(name_key, ${key}) > 0 or strpos(slug, ${key}) > 0)`,
    orElse: () => sql`(instr(name_key, ${key}) > 0 or instr(slug, ${key}) > 0)`
  })
}
