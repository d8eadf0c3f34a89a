import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Headless connectors, their delivery log, and the outbox's claim columns on `events`. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  const bool = sql.onDialectOrElse({ pg: () => "boolean", orElse: () => "integer" })
  const no = sql.onDialectOrElse({ pg: () => "false", orElse: () => "0" })

  yield* sql.unsafe(`CREATE TABLE connectors (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    type text NOT NULL,
    name text NOT NULL,
    destination_url text NOT NULL,
    secret text NOT NULL,
    events ${json} NOT NULL,
    extra_headers ${json} NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX connectors_org ON connectors (organization_id, created_at)`)
  yield* tenantTable("connectors")

  yield* sql.unsafe(`CREATE TABLE connector_deliveries (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    connector_id uuid NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
    event_id uuid NOT NULL,
    event_name text NOT NULL,
    attempted_at text NOT NULL,
    duration_ms integer NOT NULL,
    status integer,
    ok ${bool} NOT NULL,
    error text
  )`)
  yield* sql.unsafe(`CREATE INDEX connector_deliveries_recent ON connector_deliveries (connector_id, attempted_at, id)`)
  yield* tenantTable("connector_deliveries")

  // A claim is a lease: the dispatcher holding it delivers the event; if it dies, the lease
  // runs out and another dispatcher takes the event over.
  yield* sql.unsafe(`ALTER TABLE events ADD COLUMN claimed_by text`)
  yield* sql.unsafe(`ALTER TABLE events ADD COLUMN claimed_until text`)
  yield* sql.unsafe(`CREATE INDEX events_pending_org ON events (organization_id, seq) WHERE dispatched = ${no}`)
})
