import { afterAll, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { ProductRepository } from "../core/products/ProductRepository.js"
import { Products } from "../core/products/Products.js"
import { Families } from "../core/schema/Families.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { productJsonSuite } from "./contract/productJson.js"
import { catalogOver, newTenant } from "./support/Catalog.js"

// A file, not `:memory:`: only a file has a second, read-only connection.
const dir = mkdtempSync(join(tmpdir(), "catalog-read-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const storage = SqliteStorage.layer(join(dir, "catalog.db"))

productJsonSuite("sqlite file: product json", storage)

layer(catalogOver(storage), { timeout: 60_000 })("sqlite file: read connection", (it) => {
  it.effect("reads committed state only: not a product inside its transaction, then every commit from the next read on", () =>
    Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const result = yield* Effect.provideService(
        Effect.gen(function*() {
          const products = yield* Products
          const repo = yield* ProductRepository
          const family = yield* (yield* Families).create({ code: "plain", label: { en: "Plain" } })
          const inside = yield* (yield* UnitOfWork).tenant(
            organization.id,
            Effect.gen(function*() {
              const created = yield* products.create({ familyId: family.id, name: "Pending" })
              return { id: created.id, seen: yield* repo.findJson(organization.id, created.id) }
            })
          )
          const committed = JSON.parse(yield* products.json(inside.id)) as { readonly name: string }
          yield* products.update(inside.id, { name: "Renamed" })
          const updated = JSON.parse(yield* products.json(inside.id)) as { readonly name: string }
          return { seenInside: Option.isSome(inside.seen), committed: committed.name, updated: updated.name }
        }),
        CurrentTenant,
        tenant
      )
      expect(result).toEqual({ seenInside: false, committed: "Pending", updated: "Renamed" })
    }))
})
