import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import type { ConnectorRecord } from "../../core/connectors/Connector.js"
import { ConnectorRepository } from "../../core/connectors/ConnectorRepository.js"
import { BooleanColumn, IntColumn, JsonColumn, toBool, toJson } from "./Columns.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  type: Schema.Literal("headless"),
  name: Schema.String,
  destinationUrl: Schema.String,
  secret: Schema.String,
  events: JsonColumn(Schema.Array(Schema.String)),
  extraHeaders: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.String })),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

const DeliveryRow = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  eventName: Schema.String,
  attemptedAt: Schema.String,
  durationMs: IntColumn,
  status: Schema.NullOr(IntColumn),
  ok: BooleanColumn,
  error: Schema.NullOr(Schema.String)
})
const decodeDeliveries = Schema.decodeUnknown(Schema.Array(DeliveryRow))

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<ConnectorRecord>> => Effect.orDie(decodeRows(rows))
  const first = (rows: ReadonlyArray<unknown>) => Effect.map(all(rows), Array.head)

  return ConnectorRepository.of({
    insert: (c) =>
      sql`insert into connectors ${
        sql.insert({
          id: c.id,
          organizationId: c.organizationId,
          type: c.type,
          name: c.name,
          destinationUrl: c.destinationUrl,
          secret: c.secret,
          events: toJson(c.events),
          extraHeaders: toJson(c.extraHeaders),
          createdAt: c.createdAt,
          updatedAt: c.updatedAt
        })
      }`.pipe(Effect.asVoid, Effect.orDie),
    list: (organizationId) =>
      sql`select * from connectors where organization_id = ${organizationId} order by created_at, id`.pipe(
        Effect.orDie,
        Effect.flatMap(all)
      ),
    findById: (organizationId, id) =>
      sql`select * from connectors where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(first)
      ),
    update: (organizationId, id, changes) => {
      const set: Record<string, unknown> = { updatedAt: changes.updatedAt }
      if (changes.name !== undefined) set["name"] = changes.name
      if (changes.events !== undefined) set["events"] = toJson(changes.events)
      return sql`update connectors set ${sql.update(set)}
                 where organization_id = ${organizationId} and id = ${id} returning *`.pipe(
        Effect.orDie,
        Effect.flatMap(first)
      )
    },
    delete: (organizationId, id) =>
      sql`delete from connectors where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.tap((rows) => rows.length > 0 ? sql`delete from webhook_queue where connector_id = ${id}` : Effect.void),
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    recordDelivery: (organizationId, connectorId, d, keep) =>
      Effect.gen(function*() {
        // Postgres: recordings for one connector take turns, so each trim sees the attempts
        // the others committed and the log never holds more than `keep`; a concurrent delete
        // of the connector waits too. (SQLite: one connection, writers take turns already.)
        // The organization first, as its deletion holds it before the connector rows it cascades
        // to: a recording that held the connector while its insert waited for the organization
        // deadlocked with the deletion. Once the organization is gone there is nothing to record.
        const organization = yield* sql.onDialectOrElse({
          pg: () => sql`select id from organizations where id = ${organizationId} for key share`,
          orElse: () => Effect.succeed([organizationId])
        })
        if (organization.length === 0) return
        const lock = sql.literal(sql.onDialectOrElse({ pg: () => "for no key update", orElse: () => "" }))
        const connector = yield* sql`select id from connectors where organization_id = ${organizationId} and id = ${connectorId} ${lock}`
        if (connector.length === 0) return
        yield* sql`insert into connector_deliveries ${
          sql.insert({
            id: d.id,
            organizationId,
            connectorId,
            eventId: d.eventId,
            eventName: d.eventName,
            attemptedAt: d.attemptedAt,
            durationMs: d.durationMs,
            status: d.status,
            ok: toBool(d.ok),
            error: d.error
          })
        }`
        yield* sql`delete from connector_deliveries
          where connector_id = ${connectorId} and id not in (
            select id from connector_deliveries where connector_id = ${connectorId}
            order by attempted_at desc, id desc limit ${keep}
          )`
      }).pipe(Effect.orDie),
    deliveries: (organizationId, connectorId, limit, offset) =>
      sql`select * from connector_deliveries where organization_id = ${organizationId} and connector_id = ${connectorId}
          order by attempted_at desc, id desc limit ${limit + 1} offset ${offset}`.pipe(
        Effect.flatMap(decodeDeliveries),
        Effect.orDie,
        Effect.map((rows) => ({ deliveries: rows.slice(0, limit), hasMore: rows.length > limit }))
      )
  })
})

export const layer = Layer.effect(ConnectorRepository, make)
