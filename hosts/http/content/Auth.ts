import { HttpApiMiddleware } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { ContentPages } from "../../../core/content/ContentPages.js"
import { CurrentTenant } from "../../../core/tenancy/Actor.js"
import { Authentication } from "../../../core/tenancy/Authentication.js"
import { resolveTenant } from "../Authentication.js"
import { ForbiddenWire, UnauthenticatedWire, ValidationFailedWire } from "../Errors.js"

/**
 * TenantAuth plus the content-pages feature check, so a disabled feature answers 403 before
 * the path or body is even read: every content-page call, valid or not.
 */
export class ContentPagesAuth extends HttpApiMiddleware.Tag<ContentPagesAuth>()("ContentPagesAuth", {
  failure: Schema.Union(UnauthenticatedWire, ForbiddenWire, ValidationFailedWire),
  provides: CurrentTenant
}) {}

export const ContentPagesAuthLive = Layer.effect(
  ContentPagesAuth,
  Effect.gen(function*() {
    const auth = yield* Authentication
    const pages = yield* ContentPages
    return Effect.tap(resolveTenant(auth), (tenant) => Effect.provideService(pages.ensureEnabled, CurrentTenant, tenant))
  })
)
