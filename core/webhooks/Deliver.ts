import { Duration, Effect } from "effect"
import type { ConnectorRecord, Delivery } from "../connectors/Connector.js"
import type { CatalogEvent } from "../events/Event.js"
import { Crypto } from "../shared/Crypto.js"
import { toTimestamp } from "../shared/Fields.js"
import { webhookRequest } from "./WebhookMessage.js"
import { WebhookSender } from "./WebhookSender.js"

/** Sends one event to one connector, once, and answers the attempt to log. */
export const deliver = (connector: ConnectorRecord, event: CatalogEvent): Effect.Effect<Delivery, never, Crypto | WebhookSender> =>
  Effect.map(attempt(connector, event), ({ delivery }) => delivery)

/**
 * `deliver`, and whether the receiver answered: a whole answer came back, whatever its status.
 * A status followed by a stall (the body timed out) or a broken connection is no answer.
 */
export const attempt = (
  connector: ConnectorRecord,
  event: CatalogEvent
): Effect.Effect<{ readonly delivery: Delivery; readonly answered: boolean }, never, Crypto | WebhookSender> =>
  Effect.gen(function*() {
    const crypto = yield* Crypto
    const sender = yield* WebhookSender
    const attemptedAt = toTimestamp(yield* Effect.clockWith((c) => c.currentTimeMillis))
    const request = yield* webhookRequest(connector, event)
    // A sender that breaks is this attempt's failure, never the dispatcher's.
    const sent = sender.send(request).pipe(Effect.catchAllDefect((defect) =>
      Effect.succeed({ status: null, error: defect instanceof Error ? defect.message : String(defect) })
    ))
    const [elapsed, outcome] = yield* Effect.timed(sent)
    const ok = outcome.error === null && outcome.status !== null && outcome.status >= 200 && outcome.status < 300
    const delivery: Delivery = {
      id: yield* crypto.uuid,
      eventId: event.id,
      eventName: event.name,
      attemptedAt,
      durationMs: Math.round(Duration.toMillis(elapsed)),
      status: outcome.status,
      ok,
      error: outcome.error ?? (ok ? null : `HTTP ${outcome.status} is not a 2xx answer`)
    }
    return { delivery, answered: outcome.status !== null && outcome.error === null }
  })
