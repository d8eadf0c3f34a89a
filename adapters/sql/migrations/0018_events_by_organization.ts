import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * SQLite keeps facet counts in memory and asks, per request, for an organization's newest
 * event and the events since the copy was made; this index answers both without reading the
 * organization's history. Postgres counts from its indexes and does not need it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const sqlite = sql.onDialectOrElse({ sqlite: () => true, orElse: () => false })
  if (!sqlite) return
  yield* sql.unsafe(`CREATE INDEX events_org_seq ON events (organization_id, seq)`)
})
