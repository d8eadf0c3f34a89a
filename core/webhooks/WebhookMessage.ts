import { Effect } from "effect"
import type { ConnectorRecord } from "../connectors/Connector.js"
import type { CatalogEvent } from "../events/Event.js"
import { Crypto } from "../shared/Crypto.js"
import type { WebhookRequest } from "./WebhookSender.js"

/** The delivery body, in the specification's key order. */
const webhookBody = (event: CatalogEvent): Uint8Array =>
  new TextEncoder().encode(JSON.stringify({
    name: event.name,
    organization_id: event.organizationId,
    entity_id: event.entityId,
    actor: { type: event.actor.type, id: event.actor.id },
    timestamp: event.createdAt,
    payload: event.payload
  }))

/** `sha256=` and the hex HMAC-SHA256 of exactly these bytes, keyed with the secret. */
export const signature = (secret: string, body: Uint8Array): Effect.Effect<string, never, Crypto> =>
  Effect.map(Crypto, (crypto) => crypto.hmacSha256Hex(secret, body)).pipe(Effect.flatten, Effect.map((hex) => `sha256=${hex}`))

/** The signed request for one event to one connector. The service's headers win over `extra_headers`. */
export const webhookRequest = (connector: ConnectorRecord, event: CatalogEvent): Effect.Effect<WebhookRequest, never, Crypto> =>
  Effect.gen(function*() {
    const body = webhookBody(event)
    return {
      url: connector.destinationUrl,
      headers: {
        ...connector.extraHeaders,
        "Content-Type": "application/json",
        "X-Service-Event": event.name,
        "X-Service-Signature-256": yield* signature(connector.secret, body),
        "X-Service-Delivery": event.id
      },
      body
    }
  })
