import { Schema } from "effect"
import { subscribed } from "../../core/events/Subscription.js"
import { JsonColumn } from "./Columns.js"

/** A connector as the queue needs it: whose it is and what it subscribes to. */
export const SubscriptionRows = Schema.Array(
  Schema.Struct({ id: Schema.String, organizationId: Schema.String, events: JsonColumn(Schema.Array(Schema.String)) })
)

/** The `webhook_queue` rows of `events`, in their order: one per connector of its organization subscribed to it. */
export const queuedDeliveries = (
  events: ReadonlyArray<{ readonly id: string; readonly organizationId: string; readonly name: string }>,
  connectors: typeof SubscriptionRows.Type
) =>
  events.flatMap((event) =>
    connectors
      .filter((c) => c.organizationId === event.organizationId && subscribed(c.events, event.name))
      .map((c) => ({ organizationId: event.organizationId, connectorId: c.id, eventId: event.id }))
  )
