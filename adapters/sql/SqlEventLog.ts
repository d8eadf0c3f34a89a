import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { EventLog } from "../../core/events/EventLog.js"
import { toJson } from "./Columns.js"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return EventLog.of({
    append: (e) =>
      sql`insert into events ${
        sql.insert({
          id: e.id,
          organizationId: e.organizationId,
          name: e.name,
          entityType: e.entityType,
          entityId: e.entityId,
          actorType: e.actor.type,
          actorId: e.actor.id,
          payload: toJson(e.payload),
          createdAt: e.createdAt
        })
      }`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(EventLog, make)
