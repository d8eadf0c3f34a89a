import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { chunksOf } from "../Columns.js"
import { tenantTable } from "../Rls.js"
import { queuedDeliveries, SubscriptionRows } from "../WebhookQueue.js"

const PendingEvents = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))

/**
 * One queue of deliveries per connector, in place of one mark per event. An event went to all
 * its connectors at once and the next waited for each of them, so a receiver that timed out
 * slowed every other connector of its organization to one event per timeout. Each connector
 * now has its own queue, claimed and sent on its own.
 *
 * The events still waiting are queued for the connectors that subscribe to them now, in the
 * order they were written; the events table keeps only the audit log.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const no = pg ? "false" : "0"
  const seq = pg ? "seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "seq integer PRIMARY KEY AUTOINCREMENT"

  yield* sql.unsafe(`CREATE TABLE webhook_queue (
    ${seq},
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    connector_id uuid NOT NULL,
    event_id uuid NOT NULL,
    claimed_by text,
    claimed_until text
  )`)
  // No foreign key to the connector: on Postgres a write that read the connector before its
  // deletion committed would fail its check. The deletion empties the queue, and the dispatcher
  // drops what such a write queued after it.
  // A connector's queue, oldest first; whether it has a live claim, in one probe; a holder's claims.
  yield* sql.unsafe(`CREATE INDEX webhook_queue_connector ON webhook_queue (connector_id, seq)`)
  yield* sql.unsafe(`CREATE INDEX webhook_queue_claims ON webhook_queue (connector_id, claimed_until)`)
  yield* sql.unsafe(`CREATE INDEX webhook_queue_holder ON webhook_queue (claimed_by)`)
  yield* tenantTable("webhook_queue")

  const pending = yield* sql`select id, organization_id, name from events where dispatched = ${sql.literal(no)} order by seq`.pipe(
    Effect.flatMap(Schema.decodeUnknown(PendingEvents))
  )
  if (pending.length > 0) {
    const connectors = yield* sql`select id, organization_id, events from connectors`.pipe(Effect.flatMap(Schema.decodeUnknown(SubscriptionRows)))
    for (const chunk of chunksOf(queuedDeliveries(pending, connectors), 500)) yield* sql`insert into webhook_queue ${sql.insert(chunk)}`
  }

  for (const index of ["events_pending", "events_pending_org", "events_pending_claims", "events_pending_holder"]) {
    yield* sql.unsafe(`DROP INDEX ${index}`)
  }
  for (const column of ["dispatched", "claimed_by", "claimed_until"]) {
    yield* sql.unsafe(`ALTER TABLE events DROP COLUMN ${column}`)
  }
})
