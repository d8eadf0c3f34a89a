import { HttpApiBuilder, HttpApiError, type HttpApp, HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { isUtf8 } from "node:buffer"
import { Cause, Effect, Either, Option, Schema } from "effect"
import { MAX_MEDIA_BYTES } from "../../core/media/Media.js"
import { type Forbidden, OrganizationGone, StorageUnavailable, type Unauthenticated, ValidationFailed } from "../../core/shared/Errors.js"
import { decodeIssues } from "../../core/shared/ParseIssues.js"
import { CatalogApi } from "./Api.js"
import { isCutShort } from "./DecodeFailures.js"
import { envelope, ForbiddenWire, UnauthenticatedWire, UnavailableWire, validationFailedEnvelope } from "./Errors.js"
import { nestsDeeperThan } from "./JsonDepth.js"
import { type KnownRoute, knownRoute, type RouteKind } from "./KnownRoutes.js"
import { CallerAuth, TenantAuth } from "./Authentication.js"
import { ContentPagesAuth } from "./content/Auth.js"
import { isFormDataType } from "./media/Utf8Filenames.js"
import { OrganizationAdmin } from "./tenancy/Auth.js"
import { mayHoldUnstorable, undecodableParams, unstorableParams, unstorableStringsBesides } from "./StorableText.js"
import { MAX_JSON_DEPTH, type TextIssue, unstorableStrings } from "../../core/shared/UntrustedInput.js"

const isDecodeError = Schema.is(HttpApiError.HttpApiDecodeError)

const middlewareRefusal = (e: Unauthenticated | Forbidden | ValidationFailed): HttpServerResponse.HttpServerResponse => {
  switch (e._tag) {
    case "Unauthenticated":
      return json(401, Schema.encodeSync(UnauthenticatedWire)(e))
    case "Forbidden":
      return json(403, Schema.encodeSync(ForbiddenWire)(e))
    case "ValidationFailed":
      return json(422, validationFailedEnvelope(e))
  }
}

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

const JSON_BODY_LIMIT = 10 * 1024 * 1024
// A file of the largest size allowed, plus room for the form's other fields and boundaries;
// the file's own size is checked as it streams.
const UPLOAD_BODY_LIMIT = MAX_MEDIA_BYTES + 1024 * 1024

const hasBody = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

const malformedJson = json(400, envelope("FST_ERR_CTP_INVALID_JSON_BODY", "the body is not valid JSON"))
const notUtf8 = json(400, envelope("FST_ERR_CTP_INVALID_JSON_BODY", "the body is not valid JSON: it is not UTF-8"))
const emptyJson = json(400, envelope("FST_ERR_CTP_EMPTY_JSON_BODY", "the body cannot be empty when content-type is application/json"))
const routed = knownRoute(CatalogApi)
const isJsonType = (type: string) => /^application\/json\s*(;|$)/.test(type)
/** Whether the request writes with a JSON body: a DELETE may come with an empty one. */
const readsJsonBody = (request: HttpServerRequest.HttpServerRequest, route: RouteKind) =>
  (request.method === "POST" || request.method === "PUT" || request.method === "PATCH") && route === "may take a body"
const isJson = (text: string) => Either.isRight(Either.try(() => JSON.parse(text) as unknown))

const tooLarge = (limit: number) => json(413, envelope("FST_ERR_CTP_BODY_TOO_LARGE", `request body is larger than ${limit} bytes`))

const unsupported = (message: string) => json(415, envelope("FST_ERR_CTP_INVALID_MEDIA_TYPE", message))
const unsupportedType = (type: string) => unsupported(`unsupported media type: ${type || "(none)"}`)
const emptyForm = json(422, envelope("validation_failed", "the body is not a valid multipart/form-data upload", {
  issues: [{ path: [], message: "the body is not a valid multipart/form-data upload", code: "invalid_multipart" }]
}))

/**
 * A multipart type with no body: an empty upload is malformed, and a route reading JSON takes
 * no form, whatever its method (`DELETE /v1/organizations/{id}` reads one: HttpApi would parse
 * the missing form and fail on it).
 */
const refuseEmptyForm = (route: RouteKind, type: string): Option.Option<HttpServerResponse.HttpServerResponse> => {
  if (route === "takes a form") return Option.some(emptyForm)
  return route === "may take a body" ? Option.some(unsupportedType(type)) : Option.none()
}

/**
 * Refuses bodies of the wrong type, or of a declared size over the limit, before anything
 * reads them. A multipart form goes only to an upload: HttpApi would read one sent elsewhere
 * as the endpoint's payload, its text fields standing in for JSON ones.
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest, route: RouteKind): Option.Option<HttpServerResponse.HttpServerResponse> => {
  const type = (request.headers["content-type"] ?? "").toLowerCase()
  // HttpApi would wait for the parts of a form that has no body, and never answer.
  if (!hasBody(request)) return isFormDataType(type) ? refuseEmptyForm(route, type) : Option.none()
  const multipart = isFormDataType(type) && route === "takes a form"
  // Only application/json: HttpApi reads any other type (`application/merge-patch+json`) as
  // bytes, after this middleware has already read the body as text. An upload takes only a
  // form: its JSON body is not read, to be refused as too large or for what it holds.
  if (!multipart && (route === "takes a form" || !isJsonType(type))) {
    return Option.some(unsupportedType(type))
  }
  // Bodies are read as UTF-8 bytes as sent: a compressed or UTF-16 one would be refused as
  // malformed JSON, or a `br` label on plain JSON taken as if it were not there.
  const encoding = (request.headers["content-encoding"] ?? "identity").trim().toLowerCase()
  if (encoding !== "identity") return Option.some(unsupported(`unsupported content encoding: ${encoding}`))
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/.exec(type)?.[1]
  if (!multipart && charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return Option.some(unsupported(`unsupported charset: ${charset} (JSON is read as UTF-8)`))
  }
  const limit = multipart ? UPLOAD_BODY_LIMIT : JSON_BODY_LIMIT
  if (Number(request.headers["content-length"] ?? 0) > limit) return Option.some(tooLarge(limit))
  return Option.none()
}

/** Endpoints whose body is `{items: [...]}` with items that succeed or fail one by one. */
const ITEMWISE: ReadonlySet<string> = new Set(["products.bulk"])

const refused = (issues: ReadonlyArray<Omit<TextIssue, "code"> & { readonly code: string }>) =>
  json(422, validationFailedEnvelope(ValidationFailed.of(issues)))

/**
 * The body as text, read up to `limit` bytes: a chunked body declares no length, so its size
 * is known only once read this far. The platform's read destroys the request past the limit,
 * which would close the socket before the 413 could be written; the request is kept alive for
 * that answer, which closes the connection itself.
 */
const readWithin = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<Either.Either<string, "too large" | "unreadable" | "not utf-8">> => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const destroy = incoming.destroy
  const setEncoding = incoming.setEncoding
  return Effect.gen(function*() {
    incoming.destroy = function(this: typeof incoming) {
      this.pause()
      return this
    }
    // Read as hex, two characters a byte (so twice the limit): the platform decodes UTF-8
    // leniently, and a byte that is not UTF-8 would be stored as U+FFFD instead of refused.
    incoming.setEncoding = function(this: typeof incoming) {
      return setEncoding.call(this, "hex")
    }
    const read = yield* Effect.either(HttpIncomingMessage.withMaxBodySize(request.text, Option.some(2 * limit)))
    if (Either.isRight(read)) return asUtf8(request, Buffer.from(read.right, "hex"))
    const over = read.left.cause instanceof Error && read.left.cause.message === "maxBytes exceeded"
    return Either.left(over ? "too large" as const : "unreadable" as const)
  }).pipe(Effect.ensuring(Effect.sync(() => {
    incoming.destroy = destroy
    incoming.setEncoding = setEncoding
  })))
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The body as UTF-8 text, which the handler's read then gets in place of the hex. */
const asUtf8 = (request: HttpServerRequest.HttpServerRequest, bytes: Buffer): Either.Either<string, "not utf-8"> => {
  if (!isUtf8(bytes)) return Either.left("not utf-8")
  const text = utf8.decode(bytes)
  Object.defineProperty(request, "text", { value: Effect.succeed(text) })
  return Either.right(text)
}

/**
 * Where the query starts: the router ends the path at a `;` or `#` as at a `?`, and reads the
 * rest as the query (`/v1/products;limit=5` lists five), so its checks read it from there too.
 */
const queryStart = (url: string) => url.search(/[?;#]/)
const hasQuery = (url: string) => queryStart(url) !== -1

/**
 * The URL with every `%` of its path escaped, where the path does not decode (`%ZZ`, or bytes
 * that are not UTF-8): the router finds no route for such a path, and would answer an id sent
 * so with the 404 of an unknown route. Escaped, it finds the route the path names, if any.
 */
const escapedUndecodable = (url: string): string | undefined => {
  const start = queryStart(url)
  const path = start === -1 ? url : url.slice(0, start)
  if (!path.includes("%")) return undefined
  return Either.isRight(Either.try(() => decodeURI(path))) ? undefined : path.replaceAll("%", "%25") + url.slice(path.length)
}

const undecodablePath = refused([{ path: [], message: "the path must be percent-encoded UTF-8", code: "invalid" }])

/** The query alone: `new URL` throws on a request line such as `//a:99999/v1/products`. */
const queryOf = (url: string) => {
  const query = queryStart(url)
  return new URLSearchParams(query === -1 ? "" : url.slice(query + 1))
}

/**
 * Refuses (422) query parameters and JSON bodies holding text no database of ours can store
 * alike, and bodies nested too deep; (413) a chunked body over the limit. The body is read
 * once here and kept: the handler's read gets the same text.
 */
const checkText = (request: HttpServerRequest.HttpServerRequest, known: KnownRoute): Effect.Effect<Option.Option<HttpServerResponse.HttpServerResponse>> =>
  Effect.gen(function*() {
    const route = known.kind
    // The platform reads the query into a plain object, where a `__proto__` key vanishes
    // before the schema could refuse it as unknown. No route of ours takes such a key.
    if (hasQuery(request.url) && queryOf(request.url).has("__proto__")) {
      return Option.some(refused([{ path: ["__proto__"], message: "is unexpected", code: "unrecognized_key" }]))
    }
    const start = queryStart(request.url)
    if (start !== -1 && request.url.includes("%", start)) {
      const undecodable = undecodableParams(request.url.slice(start + 1))
      if (undecodable.length > 0) return Option.some(refused(undecodable))
    }
    // Decoded query text holds U+0000 only where the URL says `%00`.
    if (request.url.includes("%00")) {
      const inQuery = unstorableParams(queryOf(request.url))
      if (inQuery.length > 0) return Option.some(refused(inQuery))
    }
    const type = (request.headers["content-type"] ?? "").toLowerCase()
    if (isFormDataType(type)) return Option.none()
    if (!hasBody(request)) return isJsonType(type) && readsJsonBody(request, route) ? Option.some(emptyJson) : Option.none()
    const read = yield* readWithin(request, JSON_BODY_LIMIT)
    if (Either.isLeft(read) && read.left === "too large") return Option.some(tooLarge(JSON_BODY_LIMIT))
    if (Either.isLeft(read) && read.left === "not utf-8") return Option.some(notUtf8)
    const text = Either.getOrElse(read, () => "")
    if (text.length === 0 && readsJsonBody(request, route)) return Option.some(emptyJson)
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return Option.some(refused([{ path: [], message: `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, code: "too_deep" }]))
    }
    if (text.trim().length > 0 && route === "takes no body" && !isJson(text)) {
      return Option.some(malformedJson)
    }
    if (!mayHoldUnstorable(text)) return Option.none()
    // Malformed JSON is left to the handler's read, which answers it with 400.
    const body = yield* Effect.orElseSucceed(Effect.try(() => JSON.parse(text) as unknown), () => null)
    // The items of a bulk request each stand alone: the handler refuses only the items holding such text.
    const inBody = ITEMWISE.has(known.endpoint) ? unstorableStringsBesides(body, "items") : unstorableStrings(body)
    return inBody.length > 0 ? Option.some(refused(inBody)) : Option.none()
  })

/** The checks of a request's body and query, in order; the first refusal answers. */
const checkRequest = (request: HttpServerRequest.HttpServerRequest, route: KnownRoute): Effect.Effect<Option.Option<HttpServerResponse.HttpServerResponse>> =>
  Option.match(checkBody(request, route.kind), {
    onNone: () => checkText(request, route),
    onSome: (refusal) => Effect.succeed(Option.some(refusal))
  })

/** A route's middleware, as run here: what it provides is dropped. */
type Guard = Effect.Effect<unknown, Unauthenticated | Forbidden | ValidationFailed, HttpServerRequest.HttpServerRequest>

/**
 * Everything at the edge of the contract that HttpApi does not answer our way. Its schema
 * failures (400) become 422 `validation_failed` with `details.issues`; malformed JSON a 400
 * and bodies of the wrong type or size 415/413, with Fastify-style codes; unknown routes 404,
 * whatever their body or query; defects a bare 500. Typed failures pass on to HttpApi, which
 * encodes them by the error schemas of the API.
 *
 * A request refused here is refused only once the route's own middleware (credentials, the
 * organization, a feature) has let it through: HttpApi reads the body only after that
 * middleware, so without credentials a malformed JSON body would be 401 while a body of the
 * wrong type was 415. Credentials come first, whatever the body: a caller without them learns
 * nothing about what it sent.
 */
export const EdgeLive = HttpApiBuilder.middleware(CatalogApi, Effect.gen(function*() {
  // Each runs as HttpApi runs it, on the request alone (none of them reads the route's path).
  const guards = new Map<string, Guard>([
    [TenantAuth.key, (yield* TenantAuth) as Guard],
    [CallerAuth.key, (yield* CallerAuth) as Guard],
    [ContentPagesAuth.key, (yield* ContentPagesAuth) as Guard],
    [OrganizationAdmin.key, (yield* OrganizationAdmin) as Guard]
  ])
  /** The refusal, once the route's middleware has passed the request; its failure otherwise. */
  // The middleware's own refusals are answered here: the API declares them per route, not for every route.
  const refuse = (route: KnownRoute, refusal: HttpServerResponse.HttpServerResponse) =>
    Effect.as(Effect.forEach(route.middlewares, (tag) => guards.get(tag.key) ?? Effect.void, { discard: true }), refusal).pipe(
      Effect.catchAll((e) => Effect.succeed(middlewareRefusal(e)))
    )
  /** The JSON body the checks have read already, kept; none for a form, which is not read here. */
  const readJsonText = (request: HttpServerRequest.HttpServerRequest, route: KnownRoute) =>
    route.kind === "may take a body" && hasBody(request) && isJsonType((request.headers["content-type"] ?? "").toLowerCase())
      ? Effect.orElseSucceed(request.text, () => "")
      : Effect.succeed("")
  /** A path that does not decode is 422 on a route it names, after its body and query, as a malformed id is; 404 elsewhere. */
  const refuseUndecodable = (app: HttpApp.Default, request: HttpServerRequest.HttpServerRequest, escaped: string) =>
    Effect.flatMap(Effect.provideService(routed, HttpServerRequest.HttpServerRequest, request.modify({ url: escaped })), (route) =>
      route.kind === "unknown"
        ? app
        : Effect.flatMap(checkRequest(request, route), (refusal) =>
          Effect.flatMap(readJsonText(request, route), (text) =>
            refuse(route, Option.getOrElse(refusal, () => text.trim().length > 0 && !isJson(text) ? malformedJson : undecodablePath)))))
  return (app: HttpApp.Default) =>
    HttpServerRequest.HttpServerRequest.pipe(
      Effect.flatMap((request) => {
        const escaped = escapedUndecodable(request.url)
        if (escaped !== undefined) return refuseUndecodable(app, request, escaped)
        // Only a body, an empty JSON body where one is read, or a query can be refused here: a
        // plain read skips the route lookup.
        return request.method === "GET" && !hasBody(request) && !hasQuery(request.url)
          ? app
          : Effect.flatMap(routed, (route) =>
            route.kind === "unknown"
              ? app
              : Effect.flatMap(checkRequest(request, route), Option.match({ onNone: () => app, onSome: (refusal) => refuse(route, refusal) })))
      }),
      // The app is typed as failing with `never`, yet these do reach here: inspect the cause.
      Effect.catchAllCause((cause) => {
        const failure: Option.Option<unknown> = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error = failure.value
          if (isDecodeError(error)) {
            const issues = decodeIssues(error.issues)
            const refusal = issues.length > 0 ? ValidationFailed.of(issues, isCutShort(error)) : new ValidationFailed({ message: error.message, issues })
            return Effect.succeed(json(422, validationFailedEnvelope(refusal)))
          }
          if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
            return Effect.succeed(json(404, envelope("not_found", "no such route")))
          }
          return Effect.failCause(cause)
        }
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect)) {
          const d = defect.value
          if (HttpServerError.isServerError(d) && d._tag === "RequestError" && d.reason === "Decode") {
            return Effect.succeed(malformedJson)
          }
          if (d instanceof OrganizationGone) return Effect.succeed(json(401, envelope("unauthenticated", d.message)))
          if (d instanceof StorageUnavailable) return Effect.succeed(json(503, Schema.encodeSync(UnavailableWire)(d)))
          return Effect.logError("unhandled request failure", cause).pipe(
            Effect.as(json(500, envelope("internal", "internal server error")))
          )
        }
        return Effect.failCause(cause)
      })
    )
}))
