import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Indexes for the outbox at a large backlog: whether an organization has a live claim is one
 * probe, and a dispatcher's heartbeat and release find its own claims without reading every
 * pending event.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const no = sql.onDialectOrElse({ pg: () => "false", orElse: () => "0" })
  yield* sql.unsafe(`CREATE INDEX events_pending_claims ON events (organization_id, claimed_until) WHERE dispatched = ${no}`)
  yield* sql.unsafe(`CREATE INDEX events_pending_holder ON events (claimed_by) WHERE dispatched = ${no}`)
})
