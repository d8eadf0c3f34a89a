import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { Outbox, type QueuedDelivery } from "../../core/events/Outbox.js"
import { IntColumn } from "./Columns.js"
import { decodeEventRows, toCatalogEvent } from "./EventRow.js"

const decodeClaimed = Schema.decodeUnknown(Schema.Array(Schema.Struct({ seq: IntColumn, connectorId: Schema.String, eventId: Schema.String })))

/** Serializes claims across processes on Postgres, so no two see the same connector as free. */
const CLAIM_LOCK = 6_300_300_001

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Above every seq: a connector with fewer queued deliveries than the limit offers them all.
  const noLastSeq = sql.literal(String(Number.MAX_SAFE_INTEGER))
  // SQLite: the claim is one statement, and statements of one database never interleave.
  const serialize = sql.onDialectOrElse({
    pg: () => Effect.asVoid(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`),
    orElse: () => Effect.void
  })

  /** The claimed deliveries with their events, oldest first. */
  const withEvents = (claimed: ReadonlyArray<{ readonly seq: number; readonly connectorId: string; readonly eventId: string }>) =>
    Effect.gen(function*() {
      if (claimed.length === 0) return []
      const ids = [...new Set(claimed.map((c) => c.eventId))]
      const events = new Map(
        (yield* Effect.flatMap(sql`select * from events where ${sql.in("id", ids)}`, decodeEventRows)).map((row) => [row.id, toCatalogEvent(row)])
      )
      const deliveries: Array<QueuedDelivery> = []
      for (const { connectorId, eventId, seq } of [...claimed].sort((a, b) => a.seq - b.seq)) {
        const event = events.get(eventId)
        if (event !== undefined) deliveries.push({ id: seq, connectorId, event })
      }
      return deliveries
    })

  return Outbox.of({
    // Walks the connectors that have queued deliveries (one index step each), keeps those
    // without a live claim, and reads at most `limit` deliveries of each: the oldest `limit` of
    // them all are claimed. A backlog of one connector is never scanned delivery by delivery.
    // Given `connectors`, only that many are taken, those whose oldest delivery is oldest.
    // `+q.seq` keeps SQLite from walking the whole queue in seq order to spare sorting a few rows.
    claim: (holder, now, until, limit, except = [], connectors) =>
      serialize.pipe(
        Effect.zipRight(sql`
          update webhook_queue set claimed_by = ${holder}, claimed_until = ${until}
          where seq in (
            with recursive queued(id) as (
              select (select connector_id from webhook_queue order by connector_id limit 1)
              union all
              select (
                select q.connector_id from webhook_queue q
                where q.connector_id > queued.id
                order by q.connector_id limit 1
              )
              from queued where queued.id is not null
            ),
            free(id, first_seq, last_seq) as (
              select c.id, (
                select q.seq from webhook_queue q
                where q.connector_id = c.id
                order by q.seq limit 1
              ), (
                select q.seq from webhook_queue q
                where q.connector_id = c.id
                order by q.seq limit 1 offset ${Math.max(0, limit - 1)}
              )
              from queued c
              where c.id is not null${except.length === 0 ? sql`` : sql` and c.id not in ${sql.in(except)}`}
                and not exists (select 1 from webhook_queue o where o.connector_id = c.id and o.claimed_until >= ${now})${
            connectors === undefined ? sql`` : sql`
              order by 2 limit ${connectors}`
          }
            )
            select q.seq from free f
            cross join webhook_queue q
            where q.connector_id = f.id and q.seq <= coalesce(f.last_seq, ${noLastSeq})
            order by +q.seq
            limit ${limit}
          )
          returning seq, connector_id, event_id`),
        Effect.flatMap(decodeClaimed),
        Effect.flatMap(withEvents),
        Effect.orDie
      ),
    complete: (holder, ids) =>
      ids.length === 0
        ? Effect.succeed(true)
        : sql`delete from webhook_queue where ${sql.in("seq", ids)} and claimed_by = ${holder} returning seq`.pipe(
          Effect.map((rows) => rows.length === ids.length),
          Effect.orDie
        ),
    renew: (holder, until) =>
      sql`update webhook_queue set claimed_until = ${until} where claimed_by = ${holder}`.pipe(Effect.asVoid, Effect.orDie),
    release: (holder) =>
      sql`update webhook_queue set claimed_by = null, claimed_until = null where claimed_by = ${holder}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    giveBack: (holder, connectorId) =>
      sql`update webhook_queue set claimed_by = null, claimed_until = null
          where connector_id = ${connectorId} and claimed_by = ${holder}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(Outbox, make)
