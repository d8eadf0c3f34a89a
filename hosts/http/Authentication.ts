import { HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Crypto } from "../../core/shared/Crypto.js"
import { CatalogSettings } from "../../core/shared/CatalogSettings.js"
import { Forbidden, Unauthenticated } from "../../core/shared/Errors.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Authentication, type ResolvedTenant } from "../../core/tenancy/Authentication.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import type { Principal } from "../../core/tenancy/Principal.js"
import { ForbiddenWire, UnauthenticatedWire, ValidationFailedWire } from "./Errors.js"

/** The token of `Authorization: Bearer <token>`; undefined without the header, none for any other form of it. */
const bearerOf = (request: HttpServerRequest.HttpServerRequest): Option.Option<string | undefined> => {
  const header = request.headers["authorization"]
  if (header === undefined) return Option.some(undefined)
  // Spaces and tabs only, as HTTP has them: `\s` would take a no-break space for one too.
  const match = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(header)
  return Option.fromNullable(match?.[1])
}

/** How many `Authorization` lines the request has: Node keeps only the first in `headers`. */
const authorizationLines = (request: HttpServerRequest.HttpServerRequest): number => {
  const raw = (request.source as { readonly rawHeaders?: unknown }).rawHeaders
  if (!Array.isArray(raw)) return request.headers["authorization"] === undefined ? 0 : 1
  let lines = 0
  for (let i = 0; i < raw.length; i += 2) if (String(raw[i]).toLowerCase() === "authorization") lines++
  return lines
}

/**
 * The principal of the request's credentials. Two `Authorization` headers are refused: which
 * of them would act is the client's mistake, not ours to guess (Node would take the first).
 */
const principalOf = (auth: typeof Authentication.Service, request: HttpServerRequest.HttpServerRequest) =>
  authorizationLines(request) > 1
    ? Effect.fail(new Unauthenticated({ message: "more than one Authorization header" }))
    : Option.match(bearerOf(request), {
      // Another scheme or a token of two words is not "missing": say what the header must be.
      onNone: () => Effect.fail(new Unauthenticated({ message: "the Authorization header must be Bearer and one token" })),
      onSome: auth.principal
    })

/** Resolves the credentials of a catalog request into the organization it acts in. */
export class TenantAuth extends HttpApiMiddleware.Tag<TenantAuth>()("TenantAuth", {
  failure: Schema.Union(UnauthenticatedWire, ForbiddenWire, ValidationFailedWire),
  provides: CurrentTenant
}) {}

/** The organization and actor of the current request, from its credentials. */
export const resolveTenant = (auth: typeof Authentication.Service) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(principalOf(auth, request), (principal) => auth.tenant(principal, request.headers["x-organization-id"])))

export const TenantAuthLive = Layer.effect(TenantAuth, Effect.map(Authentication, resolveTenant))

/** Who calls, and the organization they act in when one is selected. */
export class Caller extends Context.Tag("catalog/http/Caller")<Caller, {
  readonly principal: Principal
  readonly tenant: Option.Option<ResolvedTenant>
}>() {}

/**
 * For the routes that also serve callers outside any organization: `GET /v1/me` and
 * `POST /v1/organizations` (which alone accepts the `x-pim-service-key` header).
 */
export class CallerAuth extends HttpApiMiddleware.Tag<CallerAuth>()("CallerAuth", {
  failure: Schema.Union(UnauthenticatedWire, ForbiddenWire, ValidationFailedWire),
  provides: Caller
}) {}

export const CallerAuthLive = (serviceKey: Option.Option<Redacted.Redacted>) =>
  Layer.effect(
    CallerAuth,
    Effect.gen(function*() {
      const auth = yield* Authentication
      const crypto = yield* Crypto
      const settings = yield* CatalogSettings
      const organizations = yield* Organizations
      return Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // The routes behind this middleware are `GET /v1/me` and `POST /v1/organizations`.
        const isOrgCreate = request.method === "POST"
        // A single-tenant deployment has no organization creation at all, whoever asks.
        if (isOrgCreate && settings.tenancy === "single") {
          return yield* new Forbidden({ message: "this deployment serves a single organization" })
        }
        // Anywhere else the header means nothing and is ignored, as on the catalog routes.
        const presented = isOrgCreate ? request.headers["x-pim-service-key"] : undefined
        if (presented !== undefined) {
          const accepted = Option.isSome(serviceKey) && crypto.safeEqual(presented, Redacted.value(serviceKey.value))
          if (!accepted) return yield* new Unauthenticated({ message: "service key not accepted" })
          return { principal: { _tag: "Service" } as const, tenant: Option.none() }
        }
        const principal = yield* principalOf(auth, request)
        // A caller that may create none is told so before its body is read, not after fixing it.
        if (isOrgCreate) yield* organizations.mayCreate(principal)
        const header = request.headers["x-organization-id"]
        if (principal._tag === "User" && header === undefined) return { principal, tenant: Option.none() }
        return { principal, tenant: Option.some(yield* auth.tenant(principal, header)) }
      })
    })
  )
