import { Context, type Effect, Schema } from "effect"

/** The destination is not allowed: a private, loopback or otherwise internal address. */
export class DestinationRefused extends Schema.TaggedError<DestinationRefused>()("DestinationRefused", {
  reason: Schema.String
}) {}

/** One signed webhook request, exactly as it goes on the wire. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** What came back: the HTTP status, or null and why no answer came. */
export interface WebhookOutcome {
  readonly status: number | null
  readonly error: string | null
}

/** Sends webhooks over the network and decides which destinations may be reached. */
export class WebhookSender extends Context.Tag("catalog/WebhookSender")<WebhookSender, {
  /**
   * Checks a destination when a connector is installed. Every `send` checks again where it
   * connects, so a name that later resolves elsewhere is still refused.
   */
  readonly checkDestination: (url: string) => Effect.Effect<void, DestinationRefused>
  /**
   * POSTs the request once: no retries, no redirects followed, bounded in time and in the
   * size of the response read. Never fails: every problem is an outcome to log.
   */
  readonly send: (request: WebhookRequest) => Effect.Effect<WebhookOutcome>
}>() {}
