import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import {
  ApiKeys,
  Attributes,
  Brands,
  catalogLayer,
  Categories,
  Connectors,
  ContentPages,
  CurrentTenant,
  Families,
  MediaLibrary,
  MemoryWebhookSender,
  Modifiers,
  NotFound,
  Organizations,
  ProductModifiers,
  Products,
  Relationships,
  SqliteStorage,
  Variants
} from "../index.js"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"

// An app embedding the catalog passes ids as it got them (from its own URLs, say), unchecked: the
// host decodes its path ids to lower-case UUIDs first. Any other text names no record, on either
// database; Postgres refused it as a `uuid`, a defect, where SQLite found nothing.
const available = await postgresAvailable()

const catalogs = [
  { name: "SQLite", skip: false, catalog: catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer() }).pipe(Layer.orDie) },
  { name: "Postgres", skip: !available, catalog: catalogLayer({ storage: postgresStorage, webhooks: MemoryWebhookSender.layer() }) }
]

for (const { catalog, name, skip } of catalogs) {
  describe.skipIf(skip)(name, () => {
    layer(catalog, { timeout: 60_000 })("ids an app passes unchecked", (it) => {
      it.effect("answer NotFound when no record can have them, text or an upper-cased id alike", () =>
        Effect.gen(function*() {
          const org = yield* (yield* Organizations).create({ name: "Ids", slug: "ids" }, { _tag: "Service" })
          const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "service", id: "app" }, role: null })
          const family = yield* Effect.provideService((yield* Families).create({ code: "mugs", label: { en: "Mugs" } }), CurrentTenant, tenant)
          const product = yield* Effect.provideService((yield* Products).create({ familyId: family.id, name: "Mug" }), CurrentTenant, tenant)
          const notFound = (effect: Effect.Effect<unknown, unknown, CurrentTenant>) =>
            Effect.exit(Effect.provideService(effect, CurrentTenant, tenant)).pipe(Effect.map((exit) => {
              if (Exit.isSuccess(exit)) return "succeeded"
              const failure = Cause.failureOption(exit.cause)
              if (Option.isNone(failure)) return `died: ${Cause.pretty(exit.cause).split("\n")[0]}`
              return failure.value instanceof NotFound ? `${failure.value.entity} ${failure.value.id}` : `failed: ${String(failure.value)}`
            }))

          for (const id of ["42", "not-a-uuid", product.id.toUpperCase()]) {
            const products = yield* Products
            expect(yield* notFound(products.get(id, {}))).toBe(`product ${id}`)
            expect(yield* notFound(products.json(id))).toBe(`product ${id}`)
            expect(yield* notFound(products.update(id, { name: "Cup" }))).toBe(`product ${id}`)
            expect(yield* notFound(products.delete(id))).toBe(`product ${id}`)
            expect(yield* notFound((yield* Variants).list(id, { limit: 10, offset: 0 }))).toBe(`product ${id}`)
            expect(yield* notFound((yield* Variants).get(product.id, id))).toBe(`variant ${id}`)
            expect(yield* notFound((yield* Relationships).list(id))).toBe(`product ${id}`)
            expect(yield* notFound((yield* Relationships).remove(product.id, id))).toBe(`relationship ${id}`)
            expect(yield* notFound((yield* ProductModifiers).attach(product.id, id))).toBe(`modifier ${id}`)
            expect(yield* notFound((yield* ProductModifiers).detach(product.id, id))).toBe(`modifier ${id}`)
            expect(yield* notFound((yield* MediaLibrary).list(id, { limit: 10, offset: 0 }))).toBe(`product ${id}`)
            expect(yield* notFound((yield* MediaLibrary).get(id))).toBe(`media ${id}`)
            expect(yield* notFound((yield* Families).get(id))).toBe(`attribute family ${id}`)
            expect(yield* notFound((yield* Families).updateAttachment(family.id, id, { position: 1 }))).toBe(`family attribute ${id}`)
            expect(yield* notFound((yield* Attributes).usage(id))).toBe(`attribute ${id}`)
            expect(yield* notFound((yield* Categories).update(id, { name: "Cups" }))).toBe(`category ${id}`)
            expect(yield* notFound((yield* Brands).delete(id))).toBe(`brand ${id}`)
            expect(yield* notFound((yield* Modifiers).get(id))).toBe(`modifier ${id}`)
            expect(yield* notFound((yield* ContentPages).get(id))).toBe(`content page ${id}`)
            expect(yield* notFound((yield* Connectors).deliveries(id, 10, 0))).toBe(`connector ${id}`)
            expect(yield* notFound((yield* ApiKeys).revoke(id))).toBe(`api key ${id}`)
            // Detaching what is not attached does nothing, as for any attribute not attached.
            expect(yield* notFound((yield* Families).detach(family.id, id))).toBe("succeeded")
          }
          // The record is still there under its own id.
          const found = yield* Effect.provideService((yield* Products).get(product.id, {}), CurrentTenant, tenant)
          expect(found.id).toBe(product.id)
        }))
    })
  })
}
