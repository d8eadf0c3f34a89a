import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

const closeIfUnread: HttpApp.PreResponseHandler = (request, response) => {
  const upload = (request.headers["content-type"] ?? "").toLowerCase().startsWith("multipart/")
  return Effect.succeed(
    response.status === 413 || (upload && response.status >= 400)
      ? HttpServerResponse.setHeader(response, "connection", "close")
      : response
  )
}

/**
 * Serve-level middleware: closes the connection after refusing an upload or an oversized body.
 * Such a body may be left part-read, and Node reads no further request on a connection whose
 * body it has not reached the end of, so a client reusing it would wait forever. A pre-response
 * handler sees every response, those made from typed failures too.
 */
export const closeAfterUnreadBody = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.zipRight(HttpApp.appendPreResponseHandler(closeIfUnread), app)

