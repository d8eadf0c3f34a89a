import { SqlClient } from "@effect/sql"
import { Effect, FiberRef, Layer } from "effect"
import { EventLog } from "../../core/events/EventLog.js"
import { appendedEvents } from "../../core/events/OutboxSignal.js"
import { chunksOf, toJson } from "./Columns.js"
import { decodeEventRows, toCatalogEvent } from "./EventRow.js"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return EventLog.of({
    append: (events) =>
      Effect.forEach(chunksOf(events, 500), (chunk) =>
        sql`insert into events ${
          sql.insert(chunk.map((e) => ({
            id: e.id,
            organizationId: e.organizationId,
            name: e.name,
            entityType: e.entityType,
            entityId: e.entityId,
            actorType: e.actor.type,
            actorId: e.actor.id,
            payload: toJson(e.payload),
            createdAt: e.createdAt
          })))
        }`, { discard: true }).pipe(
        Effect.zipRight(events.length > 0 ? FiberRef.set(appendedEvents, true) : Effect.void),
        Effect.orDie
      ),
    list: (organizationId, f) => {
      const conditions = [sql`organization_id = ${organizationId}`]
      if (f.entityType !== undefined) conditions.push(sql`entity_type = ${f.entityType}`)
      if (f.entityId !== undefined) conditions.push(sql`entity_id = ${f.entityId}`)
      // The action is the name after its last dot: the name ends in "." + action.
      if (f.action !== undefined) conditions.push(sql`substr(name, length(name) - ${f.action.length}) = ${`.${f.action}`}`)
      if (f.since !== undefined) conditions.push(sql`created_at >= ${f.since}`)
      if (f.until !== undefined) conditions.push(sql`created_at < ${f.until}`)
      return sql`select * from events where ${sql.and(conditions)}
                 order by seq desc limit ${f.limit + 1} offset ${f.offset}`.pipe(
        Effect.flatMap(decodeEventRows),
        Effect.orDie,
        Effect.map((rows) => ({ events: rows.slice(0, f.limit).map(toCatalogEvent), hasMore: rows.length > f.limit }))
      )
    }
  })
})

export const layer = Layer.effect(EventLog, make)
