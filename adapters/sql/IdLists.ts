import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

/** Past this many ids, SQLite takes them as one JSON array: a statement takes at most 32,766 parameters. */
const IDS_AS_PARAMETERS = 500

/**
 * `column` (of uuids) is one of `ids`, however many: a search's matches, a category's whole
 * subtree. Postgres takes them as one array; SQLite as parameters while they are few, else as
 * one JSON array.
 */
export const idIn = (sql: SqlClient.SqlClient, column: string, ids: ReadonlyArray<string>): Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`${sql(column)} = any(${ids}::uuid[])`,
    orElse: () =>
      ids.length <= IDS_AS_PARAMETERS ? sql.in(column, ids) : sql`${sql(column)} in (select value from json_each(${JSON.stringify(ids)}))`
  })
