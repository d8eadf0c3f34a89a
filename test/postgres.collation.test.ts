import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { Brands } from "../core/catalog/Brands.js"
import { Categories } from "../core/catalog/Categories.js"
import { Products } from "../core/products/Products.js"
import { catalogOver } from "./support/Catalog.js"
import { inTenant, schemaFixture } from "./support/CatalogFixtures.js"
import { freshDatabaseWith, postgresAvailable } from "./support/Postgres.js"

const available = await postgresAvailable()

// A locale whose order ignores case and punctuation at first, as many clusters' default does.
const icuDatabase = Layer.unwrapScoped(Effect.map(
  freshDatabaseWith("TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"),
  (url) => PostgresStorage.layer(url, 2)
))

const NAMES = ["apple", "Äpfel", "_under", "Banana", "ab", "a b", "Zebra"]
const BY_CODE_POINT = ["Banana", "Zebra", "_under", "a b", "ab", "apple", "Äpfel"]

describe.runIf(available)("postgres: text order", () => {
  layer(catalogOver(icuDatabase), { timeout: 60_000 })("on a database with an ICU locale", (it) => {
    it.effect("orders names, slugs, tags and codes by code point, as SQLite does, whatever the database's locale", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          for (const [i, name] of NAMES.entries()) {
            yield* products.create({ familyId: family.id, name, slug: `s-${name.toLowerCase().replace(/[^a-z]/g, "")}-${i}`, tags: [name] })
            yield* (yield* Categories).create({ name })
            yield* (yield* Brands).create({ name })
          }
          return {
            names: (yield* products.list({ sortBy: "name" })).data.map((p) => p.name),
            slugs: (yield* products.list({ sortBy: "slug" })).data.map((p) => p.slug),
            categories: (yield* (yield* Categories).list({})).map((c) => c.name),
            brands: (yield* (yield* Brands).list({})).map((b) => b.name),
            tags: (yield* products.facets({})).tags.map((t) => t.value)
          }
        }))
        expect(result.names).toEqual(BY_CODE_POINT)
        expect(result.slugs).toEqual(["s-ab-4", "s-ab-5", "s-apple-0", "s-banana-3", "s-pfel-1", "s-under-2", "s-zebra-6"])
        expect(result.tags).toEqual(["a-b", "ab", "apfel", "apple", "banana", "under", "zebra"])
        // Categories and brands by their name ignoring case, in code point order.
        const byKey = ["_under", "a b", "ab", "apple", "banana", "zebra", "äpfel"].map((k) => NAMES.find((n) => n.toLowerCase() === k))
        expect(result.brands).toEqual(byKey)
        expect(result.categories).toEqual(byKey)
      }))
  })
})
