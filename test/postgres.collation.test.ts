import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { Brands } from "../core/catalog/Brands.js"
import { Categories } from "../core/catalog/Categories.js"
import { Products } from "../core/products/Products.js"
import { BlobStore } from "../core/shared/BlobStore.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { Organizations } from "../core/tenancy/Organizations.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
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

    it.effect("writes a deleted organization's pending invites in the export by the bytes of their emails", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const sql = yield* SqlClient.SqlClient
        for (const email of ["zed@x.test", "äb@x.test", "ab@x.test", "a_b@x.test", "Ab@x.test"]) {
          yield* sql`insert into invites ${sql.insert({ organizationId: organization.id, email, role: "editor", createdAt: "2026-01-01T00:00:00.000Z" })}`
        }
        const { exportKey } = yield* Effect.provideService((yield* Organizations).delete(organization.id, organization.slug), CurrentTenant, tenant)
        const exported = JSON.parse(new TextDecoder().decode((yield* (yield* BlobStore).get(exportKey)) ?? new Uint8Array()))
        expect(exported.tables.invites.map((i: { email: string }) => i.email)).toEqual(["Ab@x.test", "a_b@x.test", "ab@x.test", "zed@x.test", "äb@x.test"])
      }))
  })
})
