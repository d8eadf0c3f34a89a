import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { IntColumn } from "./Columns.js"

const EventRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ entityType: Schema.String, entityId: Schema.String, name: Schema.String })))
const SeqRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ seq: Schema.NullOr(IntColumn) })))
const SnapshotRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ snapshot: Schema.String })))

/**
 * Where an organization's events stand, and the events between two such points (`changes`).
 * SQLite numbers events in commit order (one writer at a time), so the newest number is the
 * point. Postgres numbers them as they are written, so a write can commit after a newer number
 * was read; there the point is a snapshot, and the events between two are those of the
 * transactions the first did not see and the second did.
 */
export const changeFeed = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => ({
      head: (_organizationId: string) =>
        sql`select pg_current_snapshot()::text as snapshot`.pipe(Effect.flatMap(SnapshotRows), Effect.map((rows) => rows[0]?.snapshot ?? "")),
      changes: (organizationId: string, from: string, to: string, limit: number) =>
        sql`select entity_type, entity_id, name from events
          where organization_id = ${organizationId} and xact >= pg_snapshot_xmin(${from}::pg_snapshot)
            and not pg_visible_in_snapshot(xact, ${from}::pg_snapshot) and pg_visible_in_snapshot(xact, ${to}::pg_snapshot)
          order by seq limit ${limit}`.pipe(Effect.flatMap(EventRows))
    }),
    orElse: () => ({
      head: (organizationId: string) =>
        sql`select max(seq) as seq from events where organization_id = ${organizationId}`.pipe(
          Effect.flatMap(SeqRows),
          Effect.map((rows) => String(rows[0]?.seq ?? 0))
        ),
      changes: (organizationId: string, from: string, to: string, limit: number) =>
        sql`select entity_type, entity_id, name from events
          where organization_id = ${organizationId} and seq > ${Number(from)} and seq <= ${Number(to)}
          order by seq limit ${limit}`.pipe(Effect.flatMap(EventRows))
    })
  })
