import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import {
  ApiKeys,
  AuditLog,
  Authentication,
  catalogLayer,
  CurrentTenant,
  Families,
  MemoryWebhookSender,
  Organizations,
  Products,
  SqliteStorage
} from "../index.js"

// What another Node app does: the catalog from a storage layer, called directly, no HTTP.
const catalog = catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer() })

describe("embedding the catalog as a library", () => {
  it.live("creates an organization, issues a key and resolves it without HTTP", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const org = yield* organizations.create({ name: "Embedded shop", slug: "embedded" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const key = yield* Effect.provideService((yield* ApiKeys).create({ name: "worker" }), CurrentTenant, tenant)
      const principal = yield* (yield* Authentication).principal(key.key)
      expect(principal).toEqual({ _tag: "ApiKey", keyId: key.id, organizationId: org.id })
      const details = yield* Effect.provideService(organizations.current, CurrentTenant, tenant)
      expect(details.slug).toBe("embedded")
      const duplicate = yield* Effect.exit(organizations.create({ name: "Again", slug: "embedded" }, { _tag: "Service" }))
      assert(Exit.isFailure(duplicate))
    }).pipe(Effect.provide(catalog)))

  it.live("writes the catalog through the use cases the package exports", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Library shop", slug: "library" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inTenant((yield* Families).create({ code: "shirts", label: { en: "Shirts" } }))
      const product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Linen shirt" }))
      expect(product.slug).toBe("linen-shirt")
      const audit = yield* inTenant((yield* AuditLog).list({ entityId: product.id, limit: 10, offset: 0 }))
      expect(audit.data.map((entry) => entry.name)).toEqual(["product.created"])
    }).pipe(Effect.provide(catalog)))
})
