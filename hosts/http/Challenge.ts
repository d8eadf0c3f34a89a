import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** The scheme every 401 asks for (RFC 9110 11.6.1 requires a challenge on each). */
const BEARER_CHALLENGE = 'Bearer realm="catalog"'

const challengeIfUnauthenticated: HttpApp.PreResponseHandler = (_request, response) =>
  Effect.succeed(
    response.status === 401 && response.headers["www-authenticate"] === undefined
      ? HttpServerResponse.setHeader(response, "www-authenticate", BEARER_CHALLENGE)
      : response
  )

/**
 * Serve-level middleware naming the scheme on every 401, those refused before the body and
 * those made from typed failures alike: a pre-response handler sees every response.
 */
export const challengeUnauthenticated = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.zipRight(HttpApp.appendPreResponseHandler(challengeIfUnauthenticated), app)
