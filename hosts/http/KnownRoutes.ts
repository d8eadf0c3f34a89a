import { type HttpApi, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Where the host serves the OpenAPI document and the page that renders it. */
export const OPENAPI_PATH = "/openapi.json"
export const DOCS_PATH = "/docs"

/**
 * Whether the router has a route for the request. It asks a router of the same kind, holding
 * the API's routes and the documents', so that it reads paths exactly as the real one does
 * (case, repeated and trailing slashes, percent-encoding, HEAD served by GET).
 */
export const isKnownRoute = (api: HttpApi.HttpApi.Any): Effect.Effect<boolean, never, HttpServerRequest.HttpServerRequest> => {
  const found = HttpServerResponse.empty()
  const routes: Array<HttpRouter.Route<never, never>> = [
    HttpRouter.makeRoute("GET", OPENAPI_PATH, found),
    HttpRouter.makeRoute("GET", DOCS_PATH, found)
  ]
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      routes.push(HttpRouter.makeRoute(endpoint.method, endpoint.path, found))
    }
  }
  const lookup = Effect.runSync(HttpRouter.toHttpApp(HttpRouter.fromIterable(routes)))
  return lookup.pipe(
    Effect.as(true),
    Effect.catchTag("RouteNotFound", () => Effect.succeed(false))
  )
}
