import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schedule } from "effect"
import {
  ApiKeys,
  AuditLog,
  Authentication,
  catalogLayer,
  Connectors,
  CurrentTenant,
  DispatcherLive,
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

  it.live("delivers webhooks while the README's dispatcher runs, in the scope that built it", () =>
    Effect.gen(function*() {
      const webhooks = MemoryWebhookSender.layer()
      const catalog = catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks })
      // The same sender layer, built once per build, also gives the test what it recorded.
      const app = DispatcherLive().pipe(Layer.provideMerge(catalog), Layer.provideMerge(webhooks))
      const run = Effect.gen(function*() {
        const org = yield* (yield* Organizations).create({ name: "Hooked shop", slug: "hooked" }, { _tag: "Service" })
        const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
        const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
        yield* inTenant((yield* Connectors).install({
          type: "headless",
          name: "Storefront",
          config: { destination_url: "https://hooks.example.com/catalog", secret: "a-secret-of-16-chars" }
        }))
        const family = yield* inTenant((yield* Families).create({ code: "lamps", label: { en: "Lamps" } }))
        const product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Desk lamp" }))
        const recorded = yield* MemoryWebhookSender.RecordedWebhooks
        const sent = yield* recorded.all.pipe(
          Effect.filterOrFail((all) => all.length > 0, () => "nothing sent yet"),
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(100))))
        )
        expect(sent.map((request) => [request.url, JSON.parse(request.text).name, JSON.parse(request.text).entity_id])).toEqual([
          ["https://hooks.example.com/catalog", "product.created", product.id]
        ])
      })
      yield* Effect.scoped(Layer.build(app).pipe(Effect.flatMap((context) => Effect.provide(run, context))))
    }))
})
