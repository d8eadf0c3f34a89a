import { type HttpApi, HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Where the host serves the OpenAPI document and the page that renders it. */
export const OPENAPI_PATH = "/openapi.json"
export const DOCS_PATH = "/docs"

/**
 * What the router does with a request: no route takes it; a route takes it and reads no body
 * (HttpApi then never reads one: a malformed JSON body sent there would pass unseen, and the
 * action run); or a route takes it that may read one.
 */
export type RouteKind = "unknown" | "takes no body" | "may take a body"

// The lookup's routes answer with these statuses to say which kind they are.
const TAKES_NO_BODY = 204
const MAY_TAKE_A_BODY = 200

/**
 * The kind of route a request goes to, among the API's endpoints and the documents. It asks a
 * router of the same kind as the real one, holding the same routes, so that case, repeated and
 * trailing slashes, percent-encoding and HEAD (served by GET) are read exactly as it reads them.
 */
export const routeKind = (api: HttpApi.HttpApi.Any): Effect.Effect<RouteKind, never, HttpServerRequest.HttpServerRequest> => {
  const mayTakeABody = HttpServerResponse.empty({ status: MAY_TAKE_A_BODY })
  const routes = [HttpRouter.makeRoute("GET", OPENAPI_PATH, mayTakeABody), HttpRouter.makeRoute("GET", DOCS_PATH, mayTakeABody)]
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const bodiless = endpoint.payloadSchema._tag === "None" && endpoint.method !== "GET" && endpoint.method !== "HEAD"
      routes.push(HttpRouter.makeRoute(endpoint.method, endpoint.path, bodiless ? HttpServerResponse.empty({ status: TAKES_NO_BODY }) : mayTakeABody))
    }
  }
  return Effect.runSync(HttpRouter.toHttpApp(HttpRouter.fromIterable(routes))).pipe(
    Effect.map((response): RouteKind => (response.status === TAKES_NO_BODY ? "takes no body" : "may take a body")),
    Effect.catchTag("RouteNotFound", () => Effect.succeed<RouteKind>("unknown"))
  )
}
