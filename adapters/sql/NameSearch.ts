import type { SqlClient } from "@effect/sql"
import { caseKey } from "../../core/catalog/Text.js"

/** Rows whose `name_key` or `slug` holds `q`, ignoring case in every script; `%` and `_` match themselves. */
export const nameOrSlugHolds = (sql: SqlClient.SqlClient, q: string) => {
  const like = `%${caseKey(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  return sql`(name_key like ${like} escape '\\' or slug like ${like} escape '\\')`
}
