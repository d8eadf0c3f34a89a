import { HttpApiMiddleware } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { Authentication } from "../../../core/tenancy/Authentication.js"
import { mayDelete } from "../../../core/tenancy/Organizations.js"
import { resolveTenant } from "../Authentication.js"
import { ForbiddenWire, UnauthenticatedWire, ValidationFailedWire } from "../Errors.js"

/**
 * The organization's deletion is an admin's alone: an API key or an editor is refused with 403
 * before the path or body is read, as a missing membership is.
 */
export class OrganizationAdmin extends HttpApiMiddleware.Tag<OrganizationAdmin>()("OrganizationAdmin", {
  failure: Schema.Union(UnauthenticatedWire, ForbiddenWire, ValidationFailedWire)
}) {}

export const OrganizationAdminLive = Layer.effect(
  OrganizationAdmin,
  Effect.map(Authentication, (auth) => Effect.flatMap(resolveTenant(auth), mayDelete))
)
