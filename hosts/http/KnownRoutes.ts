import { type HttpApi, type HttpApiMiddleware, HttpApiSchema, HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option, type Schema } from "effect"

/** Where the host serves the OpenAPI document and the page that renders it. */
export const OPENAPI_PATH = "/openapi.json"
export const DOCS_PATH = "/docs"

/**
 * What the router does with a request: no route takes it; a route takes it and reads no body
 * (HttpApi then never reads one: a malformed JSON body sent there would pass unseen, and the
 * action run); a route takes it that reads a multipart form (an upload); or a route takes it
 * that may read a JSON one.
 */
export type RouteKind = "unknown" | "takes no body" | "takes a form" | "may take a body"

// The lookup's routes answer with these statuses to say which kind they are.
const TAKES_NO_BODY = 204
const TAKES_A_FORM = 202
const MAY_TAKE_A_BODY = 200

const isForm = (payload: Option.Option<Schema.Schema.All>) =>
  Option.isSome(payload) &&
  (HttpApiSchema.getMultipart(payload.value.ast) !== undefined || HttpApiSchema.getMultipartStream(payload.value.ast) !== undefined)

const statusOf = (endpoint: { readonly method: string; readonly payloadSchema: Option.Option<Schema.Schema.All> }) => {
  if (isForm(endpoint.payloadSchema)) return TAKES_A_FORM
  // A GET's payload schema is its query: it never reads a body.
  const bodiless = Option.isNone(endpoint.payloadSchema) || endpoint.method === "GET" || endpoint.method === "HEAD"
  return bodiless ? TAKES_NO_BODY : MAY_TAKE_A_BODY
}

const kindOf = (status: number): RouteKind =>
  status === TAKES_NO_BODY ? "takes no body" : status === TAKES_A_FORM ? "takes a form" : "may take a body"

/**
 * The kind of route a request goes to, among the API's endpoints and the documents. It asks a
 * router of the same kind as the real one, holding the same routes, so that case, repeated and
 * trailing slashes, percent-encoding and HEAD (served by GET) are read exactly as it reads them.
 */
export const routeKind = (api: HttpApi.HttpApi.Any): Effect.Effect<RouteKind, never, HttpServerRequest.HttpServerRequest> => {
  const takesNoBody = HttpServerResponse.empty({ status: TAKES_NO_BODY })
  const routes = [HttpRouter.makeRoute("GET", OPENAPI_PATH, takesNoBody), HttpRouter.makeRoute("GET", DOCS_PATH, takesNoBody)]
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      routes.push(HttpRouter.makeRoute(endpoint.method, endpoint.path, HttpServerResponse.empty({ status: statusOf(endpoint) })))
    }
  }
  return Effect.runSync(HttpRouter.toHttpApp(HttpRouter.fromIterable(routes))).pipe(
    Effect.map((response) => kindOf(response.status)),
    Effect.catchTag("RouteNotFound", () => Effect.succeed<RouteKind>("unknown"))
  )
}

/**
 * The middlewares (credentials, feature checks) of the endpoint a request goes to, in the
 * order HttpApi runs them; none for an unknown route or a document.
 */
export const routeMiddlewares = (
  api: HttpApi.HttpApi.Any
): Effect.Effect<ReadonlyArray<HttpApiMiddleware.TagClassAny>, never, HttpServerRequest.HttpServerRequest> => {
  const found: Array<ReadonlyArray<HttpApiMiddleware.TagClassAny>> = []
  const routes: Array<HttpRouter.Route<never, never>> = []
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const index = found.push([...group.middlewares, ...endpoint.middlewares]) - 1
      routes.push(HttpRouter.makeRoute(endpoint.method, endpoint.path, HttpServerResponse.empty({ headers: { "x-route": String(index) } })))
    }
  }
  return Effect.runSync(HttpRouter.toHttpApp(HttpRouter.fromIterable(routes))).pipe(
    Effect.map((response) => found[Number(response.headers["x-route"])] ?? []),
    Effect.catchTag("RouteNotFound", () => Effect.succeed([]))
  )
}
