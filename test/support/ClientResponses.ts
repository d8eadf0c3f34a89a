import { Effect, Queue } from "effect"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import type { ClientRequest, IncomingMessage } from "node:http"

/**
 * The statuses this process's HTTP clients read in answer to requests for `path` on `port`,
 * as they come. Node publishes a response head in the same turn as, and just before, the
 * client's own `response` handler: whoever takes one wakes with the client holding the status.
 */
export const clientResponses = (port: number, path: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.gen(function*() {
        const statuses = yield* Queue.unbounded<number | undefined>()
        const listener = (message: unknown) => {
          const { request, response } = message as { request: ClientRequest; response: IncomingMessage }
          if (request.socket?.remotePort === port && request.path === path) statuses.unsafeOffer(response.statusCode)
        }
        subscribe("http.client.response.finish", listener)
        return { statuses, listener }
      }),
      ({ listener }) => Effect.sync(() => unsubscribe("http.client.response.finish", listener))
    ),
    ({ statuses }) => statuses
  )
