import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Postgres numbers an event when it is written, not when its transaction commits, so "the
 * events after number N" can miss one that commits later with a smaller number. Each event
 * also records its transaction, so that a reader holding a snapshot can ask for exactly the
 * events that snapshot did not see (the facet copy, as on SQLite, where numbers already are
 * in commit order). Events written before this migration count as written by it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (!pg) return
  yield* sql.unsafe(`ALTER TABLE events ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id()`)
  yield* sql.unsafe(`CREATE INDEX events_org_xact ON events (organization_id, xact)`)
})
