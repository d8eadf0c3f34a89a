import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { ValidationFailed } from "../../../core/shared/Errors.js"
import { CurrentTenant } from "../../../core/tenancy/Actor.js"
import { ApiKeys } from "../../../core/tenancy/ApiKeys.js"
import { Organizations } from "../../../core/tenancy/Organizations.js"
import { CatalogApi } from "../Api.js"
import { Caller } from "../Authentication.js"

export const CallerLive = HttpApiBuilder.group(CatalogApi, "caller", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return handlers
      .handle("me", () =>
        Effect.gen(function*() {
          const caller = yield* Caller
          const actor = caller.principal._tag === "ApiKey"
            ? { type: "api_key" as const, id: caller.principal.keyId }
            : caller.principal._tag === "User"
            ? { type: "user" as const, id: caller.principal.userId }
            : { type: "service" as const, id: "" }
          if (Option.isNone(caller.tenant)) return { organization: null, actor, role: null }
          const tenant = caller.tenant.value
          const org = yield* Effect.provideService(organizations.current, CurrentTenant, tenant)
          return { organization: { id: org.id, name: org.name, slug: org.slug }, actor, role: tenant.role }
        }))
      .handle("createOrganization", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* Caller
          // Over HTTP nothing else could ever reach an organization the service key made for no one.
          if (caller.principal._tag === "Service" && payload.initialAdmin?.email === undefined && payload.initialAdmin?.userId === undefined) {
            return yield* ValidationFailed.one(["initialAdmin"], "the service key creates an organization on behalf of initialAdmin: give its email or userId", "required")
          }
          return yield* organizations.create(payload, caller.principal)
        }))
  }))

export const OrganizationsLive = HttpApiBuilder.group(CatalogApi, "organizations", (handlers) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    return handlers
      .handle("current", () => organizations.current)
      .handle("updateCurrent", ({ payload }) => organizations.updateCurrent(payload))
      .handle("delete", ({ path, payload }) => organizations.delete(path.id, payload.confirm))
  }))

export const ApiKeysLive = HttpApiBuilder.group(CatalogApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("list", () => keys.list)
      .handle("create", ({ payload }) => keys.create(payload))
      .handle("rename", ({ path, payload }) => keys.rename(path.id, payload))
      .handle("revoke", ({ path }) => keys.revoke(path.id))
  }))
