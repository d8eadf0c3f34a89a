import { Schema } from "effect"
import { Timestamp } from "../shared/Fields.js"
import { Actor } from "../tenancy/Actor.js"
import type { CatalogEvent } from "./Event.js"

/** One line of the audit log: an event as the organization sees it. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  entityType: Schema.String,
  entityId: Schema.String,
  action: Schema.String,
  actor: Actor,
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Timestamp
})
export type AuditEntry = typeof AuditEntry.Type

export const AuditPage = Schema.Struct({
  data: Schema.Array(AuditEntry),
  limit: Schema.Number,
  offset: Schema.Number,
  hasMore: Schema.Boolean
})
export type AuditPage = typeof AuditPage.Type

/**
 * Which events to list; `since` is inclusive, `until` exclusive, both ISO 8601 date-times with a
 * zone, to any precision, or dates (midnight UTC).
 */
export interface AuditFilter {
  readonly entityType?: string | undefined
  readonly entityId?: string | undefined
  readonly action?: string | undefined
  readonly since?: string | undefined
  readonly until?: string | undefined
  readonly limit: number
  readonly offset: number
}

export const toAuditEntry = (event: CatalogEvent): AuditEntry => ({
  id: event.id,
  name: event.name,
  entityType: event.entityType,
  entityId: event.entityId,
  action: event.action,
  actor: event.actor,
  payload: event.payload,
  createdAt: event.createdAt
})
