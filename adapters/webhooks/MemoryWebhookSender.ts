import { Context, Effect, Layer, Ref } from "effect"
import { DestinationRefused, type WebhookOutcome, type WebhookRequest, WebhookSender } from "../../core/webhooks/WebhookSender.js"

/** A request the in-memory sender took, with its body as text for convenience. */
export interface RecordedWebhook extends WebhookRequest {
  readonly text: string
}

/** What the in-memory sender has been asked to send, oldest first. */
export class RecordedWebhooks extends Context.Tag("catalog/RecordedWebhooks")<RecordedWebhooks, {
  readonly all: Effect.Effect<ReadonlyArray<RecordedWebhook>>
  readonly clear: Effect.Effect<void>
}>() {}

/**
 * Sends nothing: records each request and answers `answer` (200 unless told otherwise). For
 * embedding without network access and for tests. Only the scheme is checked.
 */
export const layer = (answer: (request: WebhookRequest) => WebhookOutcome = () => ({ status: 200, error: null })) =>
  Layer.effectContext(
    Effect.gen(function*() {
      const recorded = yield* Ref.make<ReadonlyArray<RecordedWebhook>>([])
      const sender = WebhookSender.of({
        checkDestination: (url) => {
          const protocol = URL.canParse(url) ? new URL(url).protocol : ""
          return protocol === "http:" || protocol === "https:"
            ? Effect.void
            : Effect.fail(new DestinationRefused({ reason: "destination must be http or https" }))
        },
        send: (request) =>
          Ref.update(recorded, (all) => [...all, { ...request, text: new TextDecoder().decode(request.body) }]).pipe(
            Effect.as(answer(request))
          )
      })
      return Context.make(WebhookSender, sender).pipe(
        Context.add(RecordedWebhooks, RecordedWebhooks.of({ all: Ref.get(recorded), clear: Ref.set(recorded, []) }))
      )
    })
  )
