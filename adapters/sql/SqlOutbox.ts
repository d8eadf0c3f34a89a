import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { Outbox } from "../../core/events/Outbox.js"
import { IntColumn } from "./Columns.js"
import { EventRow, toCatalogEvent } from "./EventRow.js"

const ClaimedRow = Schema.Struct({ ...EventRow.fields, seq: IntColumn })
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))

/** Serializes claims across processes on Postgres, so no two see the same organization as free. */
const CLAIM_LOCK = 6_300_300_001

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const no = sql.literal(sql.onDialectOrElse({ pg: () => "false", orElse: () => "0" }))
  const yes = sql.literal(sql.onDialectOrElse({ pg: () => "true", orElse: () => "1" }))
  // SQLite: the claim is one statement, and statements of one database never interleave.
  const serialize = sql.onDialectOrElse({
    pg: () => Effect.asVoid(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`),
    orElse: () => Effect.void
  })

  return Outbox.of({
    claim: (holder, now, until, limit) =>
      serialize.pipe(
        Effect.zipRight(sql`
          update events set claimed_by = ${holder}, claimed_until = ${until}
          where seq in (
            select e.seq from events e
            where e.dispatched = ${no}
              and (e.claimed_until is null or e.claimed_until < ${now})
              and not exists (
                select 1 from events o
                where o.organization_id = e.organization_id and o.dispatched = ${no} and o.claimed_until >= ${now}
              )
            order by e.seq
            limit ${limit}
          )
          returning *`),
        Effect.flatMap(decodeClaimed),
        Effect.orDie,
        Effect.map((rows) => [...rows].sort((a, b) => a.seq - b.seq).map(toCatalogEvent))
      ),
    complete: (holder, eventIds) =>
      eventIds.length === 0
        ? Effect.succeed(true)
        : sql`update events set dispatched = ${yes}, claimed_by = null, claimed_until = null
              where ${sql.in("id", eventIds)} and claimed_by = ${holder} returning id`.pipe(
          Effect.map((rows) => rows.length === eventIds.length),
          Effect.orDie
        ),
    renew: (holder, until) =>
      sql`update events set claimed_until = ${until} where claimed_by = ${holder} and dispatched = ${no}`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    release: (holder) =>
      sql`update events set claimed_by = null, claimed_until = null where claimed_by = ${holder} and dispatched = ${no}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
  })
})

export const layer = Layer.effect(Outbox, make)
