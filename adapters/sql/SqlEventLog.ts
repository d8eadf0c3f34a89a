import { SqlClient } from "@effect/sql"
import { Effect, FiberRef, Layer, Schema } from "effect"
import type { CatalogEvent } from "../../core/events/Event.js"
import { EventLog } from "../../core/events/EventLog.js"
import { appendedEvents } from "../../core/events/OutboxSignal.js"
import { OrganizationGone } from "../../core/shared/Errors.js"
import { auditPage } from "./AuditQuery.js"
import { chunksOf, toJson } from "./Columns.js"
import { queuedDeliveries, SubscriptionRows } from "./WebhookQueue.js"

const decodeSubscriptions = Schema.decodeUnknown(SubscriptionRows)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  /** The connectors of the events' organizations, with the patterns each subscribes to. */
  const subscriptions = (events: ReadonlyArray<CatalogEvent>) =>
    sql`select id, organization_id, events from connectors where ${sql.in("organization_id", [...new Set(events.map((e) => e.organizationId))])}`
      .pipe(Effect.flatMap(decodeSubscriptions))

  const insert = (events: ReadonlyArray<CatalogEvent>) =>
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
      }`, { discard: true })

  return EventLog.of({
    // Each event is queued for the connectors subscribed when it is written, in the order
    // written: a write by an organization without connectors costs the dispatcher nothing.
    append: (events) =>
      events.length === 0 ? Effect.void : Effect.gen(function*() {
        const connectors = yield* subscriptions(events)
        yield* insert(events)
        const queued = queuedDeliveries(events, connectors)
        if (queued.length === 0) return
        yield* Effect.forEach(chunksOf(queued, 500), (chunk) => sql`insert into webhook_queue ${sql.insert(chunk)}`, { discard: true })
        yield* FiberRef.set(appendedEvents, true)
      }).pipe(Effect.orDie),
    // Nothing else these events' transaction writes checks the organization's foreign key (the
    // events table has none, so that a deleted organization's tombstone stays): without this
    // look, an event sent while its organization was deleted would outlive the tenant.
    appendSent: (events) =>
      events.length === 0 ? Effect.void : Effect.gen(function*() {
        const organizationIds = [...new Set(events.map((e) => e.organizationId))]
        const found = yield* sql<{ readonly id: string }>`select id from organizations where ${sql.in("id", organizationIds)}`
        const gone = organizationIds.find((id) => !found.some((row) => String(row.id) === id))
        if (gone !== undefined) return yield* Effect.die(new OrganizationGone({ organizationId: gone }))
        yield* insert(events)
      }).pipe(Effect.catchTag("SqlError", Effect.die)),
    list: (organizationId, filter) => auditPage(sql, organizationId, filter)
  })
})

export const layer = Layer.effect(EventLog, make)
