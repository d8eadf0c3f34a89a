import { SqlClient } from "@effect/sql"
import { Effect, FiberRef, Layer, Schema } from "effect"
import type { CatalogEvent } from "../../core/events/Event.js"
import { EventLog } from "../../core/events/EventLog.js"
import { appendedEvents } from "../../core/events/OutboxSignal.js"
import { subscribed } from "../../core/events/Subscription.js"
import { auditPage } from "./AuditQuery.js"
import { chunksOf, JsonColumn, toBool, toJson } from "./Columns.js"

const decodeSubscriptions = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ organizationId: Schema.String, events: JsonColumn(Schema.Array(Schema.String)) }))
)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  /** Per organization, the event patterns of each of its connectors. */
  const subscriptions = (events: ReadonlyArray<CatalogEvent>) =>
    sql`select organization_id, events from connectors where ${sql.in("organization_id", [...new Set(events.map((e) => e.organizationId))])}`.pipe(
      Effect.flatMap(decodeSubscriptions),
      Effect.map((rows) => {
        const byOrganization = new Map<string, Array<ReadonlyArray<string>>>()
        for (const row of rows) byOrganization.set(row.organizationId, [...(byOrganization.get(row.organizationId) ?? []), row.events])
        return byOrganization
      })
    )

  const insert = (events: ReadonlyArray<CatalogEvent>, dispatched: (e: CatalogEvent) => boolean) =>
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
          createdAt: e.createdAt,
          dispatched: toBool(dispatched(e))
        })))
      }`, { discard: true })

  return EventLog.of({
    // An event no connector subscribes to when it is written goes in as already dispatched:
    // the outbox holds only what is to be sent, and a write by an organization without
    // connectors costs the dispatcher nothing.
    append: (events) =>
      events.length === 0 ? Effect.void : Effect.gen(function*() {
        const connectors = yield* subscriptions(events)
        const toSend = (e: CatalogEvent) => (connectors.get(e.organizationId) ?? []).some((patterns) => subscribed(patterns, e.name))
        yield* insert(events, (e) => !toSend(e))
        if (events.some(toSend)) yield* FiberRef.set(appendedEvents, true)
      }).pipe(Effect.orDie),
    appendSent: (events) => insert(events, () => true).pipe(Effect.orDie),
    list: (organizationId, filter) => auditPage(sql, organizationId, filter)
  })
})

export const layer = Layer.effect(EventLog, make)
