import { type HttpApi, type HttpApiMiddleware, HttpApiSchema, HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, type Schema } from "effect"

/** Where the host serves the OpenAPI document and the page that renders it. */
export const OPENAPI_PATH = "/openapi.json"
export const DOCS_PATH = "/docs"

/**
 * How the routers match paths. Their default takes a path parameter of at most 100 characters,
 * so a longer id was answered as an unknown route (404 before any credentials) rather than as
 * the malformed id it is: a parameter may be as long as a request target.
 */
export const ROUTER_CONFIG = { maxParamLength: 65535 }

/**
 * What the router does with a request: no route takes it; a route takes it and reads no body
 * (HttpApi then never reads one: a malformed JSON body sent there would pass unseen, and the
 * action run); a route takes it that reads a multipart form (an upload); or a route takes it
 * that may read a JSON one.
 */
export type RouteKind = "unknown" | "takes no body" | "takes a form" | "may take a body"

const isForm = (payload: Option.Option<Schema.Schema.All>) =>
  Option.isSome(payload) &&
  (HttpApiSchema.getMultipart(payload.value.ast) !== undefined || HttpApiSchema.getMultipartStream(payload.value.ast) !== undefined)

const kindOf = (endpoint: { readonly method: string; readonly payloadSchema: Option.Option<Schema.Schema.All> }): RouteKind => {
  if (isForm(endpoint.payloadSchema)) return "takes a form"
  // A GET's payload schema is its query: it never reads a body.
  const bodiless = Option.isNone(endpoint.payloadSchema) || endpoint.method === "GET" || endpoint.method === "HEAD"
  return bodiless ? "takes no body" : "may take a body"
}

/** The route a request goes to: its kind, and its middlewares (credentials, feature checks) in the order HttpApi runs them. */
export interface KnownRoute {
  readonly kind: RouteKind
  readonly middlewares: ReadonlyArray<HttpApiMiddleware.TagClassAny>
  /** `group.endpoint` (`products.bulk`); empty for the documents and unknown routes. */
  readonly endpoint: string
}

const unknownRoute: KnownRoute = { kind: "unknown", middlewares: [], endpoint: "" }

/**
 * The route a request goes to, among the API's endpoints and the documents. It asks a router of
 * the same kind as the real one, holding the same routes, so that case, repeated and trailing
 * slashes, percent-encoding and HEAD (served by GET) are read exactly as it reads them.
 */
export const knownRoute = (api: HttpApi.HttpApi.Any): Effect.Effect<KnownRoute, never, HttpServerRequest.HttpServerRequest> => {
  const found: Array<KnownRoute> = []
  const routes: Array<HttpRouter.Route<never, never>> = []
  const add = (method: HttpRouter.Route<never, never>["method"], path: HttpRouter.PathInput, route: KnownRoute) => {
    const index = found.push(route) - 1
    routes.push(HttpRouter.makeRoute(method, path, HttpServerResponse.empty({ headers: { "x-route": String(index) } })))
  }
  add("GET", OPENAPI_PATH, { kind: "takes no body", middlewares: [], endpoint: "" })
  add("GET", DOCS_PATH, { kind: "takes no body", middlewares: [], endpoint: "" })
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      add(endpoint.method, endpoint.path, {
        kind: kindOf(endpoint),
        middlewares: [...group.middlewares, ...endpoint.middlewares],
        endpoint: `${group.identifier}.${endpoint.name}`
      })
    }
  }
  return Effect.runSync(HttpRouter.toHttpApp(HttpRouter.fromIterable(routes)).pipe(HttpRouter.withRouterConfig(ROUTER_CONFIG))).pipe(
    Effect.map((response) => found[Number(response.headers["x-route"])] ?? unknownRoute),
    Effect.catchTag("RouteNotFound", () => Effect.succeed(unknownRoute))
  )
}
