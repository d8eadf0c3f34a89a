import { Schema } from "effect"
import { Actor } from "../tenancy/Actor.js"

/** What a write announces. Payloads stay small: a signal to re-fetch the entity. */
export interface NewEvent {
  readonly name: string
  readonly entityType: string
  readonly entityId: string
  readonly payload?: Record<string, unknown>
}

/** A recorded event: one row of the outbox and of the audit log. */
export class CatalogEvent extends Schema.Class<CatalogEvent>("CatalogEvent")({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  entityType: Schema.String,
  entityId: Schema.String,
  actor: Actor,
  payload: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.String
}) {
  /** The part of the name after the last dot: `created` for `product.created`. */
  get action(): string {
    return this.name.slice(this.name.lastIndexOf(".") + 1)
  }
}
