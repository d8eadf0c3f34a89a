import { HttpApp, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import type { IncomingMessage } from "node:http"

/**
 * The most of a refused body that is read and dropped before the answer (within the 2 s of
 * `drained`): room for a file several times the upload limit, as a client posting one as a
 * form declares it. Closing the connection while the client still sends makes its next write
 * fail (EPIPE) before it reads the answer.
 */
const DRAINED_BYTES = 1024 * 1024 * 1024

/**
 * Reads the rest of the body and drops it; true once it has ended. Gives up (false) after
 * a short wait: a client sending slowly gets its answer and a closed connection instead.
 */
const drained = (incoming: IncomingMessage): Effect.Effect<boolean> =>
  incoming.complete ? Effect.succeed(true) : Effect.async<boolean>((resume) => {
    const ended = () => resume(Effect.succeed(true))
    const broken = () => resume(Effect.succeed(false))
    incoming.once("end", ended)
    incoming.once("error", broken)
    incoming.resume()
    return Effect.sync(() => {
      incoming.off("end", ended)
      incoming.off("error", broken)
    })
    // Pre-response handlers run uninterruptibly: without this the timeout would wait for the end.
  }).pipe(Effect.interruptible, Effect.timeoutTo({ duration: "2 seconds", onSuccess: (ended) => ended, onTimeout: () => false }))

/**
 * A request carries a body only when it declares one (RFC 9112 6.3): without `Content-Length`
 * and `Transfer-Encoding` there is nothing left unread, though Node marks such a request
 * complete only once someone has read its (empty) stream.
 */
const bodiless = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  headers["transfer-encoding"] === undefined && (headers["content-length"] === undefined || headers["content-length"].trim() === "0")

const closeIfUnread: HttpApp.PreResponseHandler = (request, response) => {
  const close = Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const declared = Number(request.headers["content-length"] ?? Number.NaN)
  if (response.status === 413) {
    // Answered on a closed connection however it ends; read first so that the client hears it.
    return incoming.complete || !(declared <= DRAINED_BYTES) ? close : Effect.zipRight(drained(incoming), close)
  }
  if (response.status < 400 || incoming.complete || bodiless(request.headers)) return Effect.succeed(response)
  if (!(declared <= DRAINED_BYTES)) return close
  return Effect.flatMap(drained(incoming), (ended) => (ended ? Effect.succeed(response) : close))
}

/**
 * Serve-level middleware for bodies refused before they were read to the end: an oversized
 * body, an upload refused (a missing product, a bad field), a body of the wrong type, or one
 * sent to a route that does not exist. Node reads no further request
 * on a connection whose body it has not reached the end of, so a client reusing it would wait
 * forever, and closing it while the client still sends makes the client's next write fail
 * before it reads the answer. A body declared up to 1 GiB is read to its end and dropped,
 * then answered on a connection that stays open; anything larger, streamed, or slower than
 * 2 s, is answered with `Connection: close`. A request that declares no body keeps its
 * connection whatever the answer. A 413 always closes the connection, after reading
 * and dropping a declared body of up to 1 GiB (for at most 2 s) so that the client gets to
 * read it. A pre-response handler sees every response,
 * those made from typed failures too.
 */
export const closeAfterUnreadBody = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.zipRight(HttpApp.appendPreResponseHandler(closeIfUnread), app)
