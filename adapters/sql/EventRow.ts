import { Schema } from "effect"
import { CatalogEvent } from "../../core/events/Event.js"
import { ActorType } from "../../core/tenancy/Actor.js"
import { JsonColumn } from "./Columns.js"

/** A row of `events`, as both dialects return it. */
export const EventRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  entityType: Schema.String,
  entityId: Schema.String,
  actorType: ActorType,
  actorId: Schema.String,
  payload: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  createdAt: Schema.String
})

export const decodeEventRows = Schema.decodeUnknown(Schema.Array(EventRow))

export const toCatalogEvent = (row: typeof EventRow.Type): CatalogEvent =>
  new CatalogEvent({
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    entityType: row.entityType,
    entityId: row.entityId,
    actor: { type: row.actorType, id: row.actorId },
    payload: row.payload,
    createdAt: row.createdAt
  })
