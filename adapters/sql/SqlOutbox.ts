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
  // Above every seq: an organization with fewer pending events than the limit offers them all.
  const noLastSeq = sql.literal(String(Number.MAX_SAFE_INTEGER))
  const yes = sql.literal(sql.onDialectOrElse({ pg: () => "true", orElse: () => "1" }))
  // SQLite: the claim is one statement, and statements of one database never interleave.
  const serialize = sql.onDialectOrElse({
    pg: () => Effect.asVoid(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`),
    orElse: () => Effect.void
  })

  return Outbox.of({
    // Walks the organizations that have pending events (one index step each), keeps those
    // without a live claim, and reads at most `limit` events of each: the oldest `limit` of
    // them all are claimed. A backlog of one organization is never scanned event by event.
    // `+e.seq` keeps SQLite from walking the whole outbox in seq order to spare sorting a few rows.
    claim: (holder, now, until, limit) =>
      serialize.pipe(
        Effect.zipRight(sql`
          update events set claimed_by = ${holder}, claimed_until = ${until}
          where seq in (
            with recursive pending_orgs(id) as (
              select (select organization_id from events where dispatched = ${no} order by organization_id limit 1)
              union all
              select (
                select e.organization_id from events e
                where e.dispatched = ${no} and e.organization_id > pending_orgs.id
                order by e.organization_id limit 1
              )
              from pending_orgs where pending_orgs.id is not null
            ),
            free_orgs(id, last_seq) as (
              select p.id, (
                select e.seq from events e
                where e.organization_id = p.id and e.dispatched = ${no}
                order by e.seq limit 1 offset ${Math.max(0, limit - 1)}
              )
              from pending_orgs p
              where p.id is not null
                and not exists (
                  select 1 from events o
                  where o.organization_id = p.id and o.dispatched = ${no} and o.claimed_until >= ${now}
                )
            )
            select e.seq from free_orgs f
            cross join events e
            where e.organization_id = f.id and e.dispatched = ${no} and e.seq <= coalesce(f.last_seq, ${noLastSeq})
            order by +e.seq
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
      ),
    giveBack: (holder, eventIds) =>
      eventIds.length === 0
        ? Effect.void
        : sql`update events set claimed_by = null, claimed_until = null
              where ${sql.in("id", eventIds)} and claimed_by = ${holder} and dispatched = ${no}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(Outbox, make)
