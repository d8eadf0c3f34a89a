import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { type FacetIndex, makeFacetIndex } from "../adapters/sql/ProductFacetIndex.js"
import type { FacetQuestion, FacetTallies } from "../adapters/sql/TenantFacets.js"
import { facetsOf } from "../adapters/sql/ProductFacets.js"
import type { Storage } from "../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { Brands } from "../core/catalog/Brands.js"
import { Categories } from "../core/catalog/Categories.js"
import type { ProductStatus } from "../core/products/Product.js"
import type { FacetOptions, ProductFilter } from "../core/products/ProductFilter.js"
import { Products } from "../core/products/Products.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { Organizations } from "../core/tenancy/Organizations.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { familyWith } from "./support/Families.js"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"

/** A small deterministic generator, so a failure replays. */
const generator = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

const STATUSES: ReadonlyArray<ProductStatus> = ["draft", "active", "archived"]
const TAGS = ["red", "blue", "green", "sale", "new", "ünïcode", "𝔣ancy"]

const postgres = await postgresAvailable()

/** The catalog over `storage` with one organization, and what the tests use of it. */
const catalogOn = (storage: Layer.Layer<Storage, unknown>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(catalogOver(storage))
    const { organization, tenant } = yield* Effect.provide(newTenant, context)
    const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provideService(CurrentTenant, tenant), Effect.provide(context), Effect.orDie) as Effect.Effect<A>
    return {
      organizationId: organization.id,
      tenant,
      run,
      sql: yield* run(SqlClient.SqlClient),
      uow: yield* run(UnitOfWork),
      products: yield* run(Products)
    }
  })

const facetsFromMemory = (label: string, storage: Layer.Layer<Storage, unknown>) =>
  describe(`${label}: facets from memory`, () => {
    it.live("count what the indexes count, for every filter, as products, brands and categories change", () =>
      Effect.gen(function*() {
        const { organizationId, products, run, sql, tenant, uow } = yield* catalogOn(storage)
        const brands = yield* run(Brands)
        const categories = yield* run(Categories)
        const random = generator(7)
        const pick = <A>(values: ReadonlyArray<A>): A => values[Math.floor(random() * values.length)]!

        const families = [yield* run(familyWith(tenant, "product", [])), yield* run(familyWith(tenant, "product", []))]
        const brandIds = [] as Array<string>
        const deletedBrands = new Set<string>()
        for (const name of ["Acme", "Bolt", "Cirrus"]) brandIds.push((yield* run(brands.create({ name }))).id)
        const shoes = yield* run(categories.create({ name: "Shoes" }))
        const boots = yield* run(categories.create({ name: "Boots", parentId: shoes.id }))
        const hiking = yield* run(categories.create({ name: "Hiking", parentId: boots.id }))
        const sandals = yield* run(categories.create({ name: "Sandals", parentId: shoes.id }))
        const hats = yield* run(categories.create({ name: "Hats" }))
        const categoryIds = [shoes.id, boots.id, hiking.id, sandals.id, hats.id]
        const children = new Map([[shoes.id, [boots.id, sandals.id]], [boots.id, [hiking.id]]])
        const subtreeOf = (id: string): Array<string> => [id, ...(children.get(id) ?? []).flatMap(subtreeOf)]

        const randomProduct = () => ({
          familyId: pick(families).id,
          status: pick(STATUSES),
          ...(random() < 0.8 ? { brandId: pick(brandIds.filter((id) => !deletedBrands.has(id))) } : {}),
          categoryIds: [...new Set(Array.from({ length: Math.floor(random() * 3) }, () => pick(categoryIds)))],
          tags: [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => pick(TAGS)))]
        })
        const ids = [] as Array<string>
        for (let i = 0; i < 60; i++) ids.push((yield* run(products.create({ name: `product ${i}`, ...randomProduct() }))).id)

        // One index for the whole test, so that later comparisons read a copy caught up through
        // events; made a few products per step, so that the steps' boundaries are crossed often.
        const index = yield* makeFacetIndex(sql, { maxProducts: 1_000_000, maxOrganizations: 10_000, buildStep: 7 })
        const everything: FacetQuestion = { filter: { includeDescendants: false }, accepts: () => true, subtree: undefined, tree: [] }
        const filters = (): ReadonlyArray<ProductFilter> => {
          const base = { includeDescendants: false }
          const out: Array<ProductFilter> = [base, { includeDescendants: true }]
          for (const status of STATUSES) out.push({ ...base, status })
          for (const brandId of brandIds) out.push({ ...base, brandId }, { ...base, brand: "acme", status: "active" })
          for (const family of families) out.push({ ...base, familyId: family.id })
          for (const categoryId of categoryIds) {
            out.push({ ...base, categoryId }, { categoryId, includeDescendants: true }, { categoryId, includeDescendants: true, status: "draft" })
          }
          for (const tag of TAGS) out.push({ ...base, tags: [tag] }, { categoryId: shoes.id, includeDescendants: true, tags: [tag, "sale"] })
          out.push({ ...base, tags: ["unknown"] }, { ...base, brandId: brandIds[0]!, familyId: families[0]!.id, categoryId: boots.id, tags: ["red"] })
          // Filters the copy does not hold: the products they let through are read, then counted in memory.
          out.push(
            { ...base, search: "product 1" },
            { ...base, search: "prodcut" },
            { categoryId: shoes.id, includeDescendants: true, search: "product", status: "active", tags: ["sale"] },
            { ...base, ids: ids.slice(3, 18), brandId: brandIds[0]! },
            { ...base, slug: "product-4" },
            { ...base, search: "nothing like it" },
            { ...base, updatedSince: "1970-01-01T00:00:00.000Z" }
          )
          return out
        }
        const options: ReadonlyArray<FacetOptions> = [
          { caps: { families: 50, statuses: 3, categories: 30, brands: 30, connectors: 20, tags: 30 }, includeEmpty: false },
          { caps: { families: 1, statuses: 3, categories: 2, brands: 2, connectors: 1, tags: 2 }, includeEmpty: true }
        ]
        const compare = (index: FacetIndex) => Effect.gen(function*() {
          yield* index.ready(organizationId)
          // Counted from memory, not from the indexes as while a copy is being made.
          expect(yield* uow.tenant(organizationId, index.tallies(organizationId, everything))).toBeDefined()
          let compared = 0
          for (const filter of filters()) {
            const subtree = filter.categoryId !== undefined && filter.includeDescendants ? subtreeOf(filter.categoryId) : undefined
            for (const option of options) {
              const fromIndexes = yield* uow.tenant(organizationId, facetsOf(sql, organizationId, filter, subtree, option))
              const fromMemory = yield* uow.tenant(organizationId, facetsOf(sql, organizationId, filter, subtree, option, index))
              expect(fromMemory, JSON.stringify(filter)).toEqual(fromIndexes)
              compared++
            }
          }
          return compared
        }).pipe(Effect.orDie)

        expect(yield* compare(index)).toBeGreaterThan(50)
        const first = yield* uow.tenant(organizationId, facetsOf(sql, organizationId, { includeDescendants: false }, undefined, options[0]!, index))
        expect(first.total).toBe(60)

        for (const id of ids.slice(0, 20)) yield* run(products.update(id, randomProduct()))
        for (const id of ids.slice(20, 25)) yield* run(products.delete(id))
        for (let i = 0; i < 5; i++) yield* run(products.create({ name: `later ${i}`, ...randomProduct() }))
        yield* run(products.bulk(ids.slice(25, 35).map((id) => ({ op: "update", id, ...randomProduct() }))))
        yield* compare(index)
        expect((yield* uow.tenant(organizationId, facetsOf(sql, organizationId, { includeDescendants: false }, undefined, options[0]!, index))).total)
          .toBe(60)

        // Deleting a brand or a category changes products that no product event names.
        yield* run(brands.delete(brandIds[1]!))
        deletedBrands.add(brandIds[1]!)
        yield* compare(index)
        yield* run(categories.delete(hiking.id))
        children.set(boots.id, [])
        categoryIds.splice(categoryIds.indexOf(hiking.id), 1)
        yield* compare(index)

        // A new copy is made in the background; until it is ready the indexes answer, and writes
        // made meanwhile are read once it is.
        const fresh = yield* makeFacetIndex(sql, { maxProducts: 1_000_000, maxOrganizations: 10_000, buildStep: 7 })
        expect(yield* uow.tenant(organizationId, fresh.tallies(organizationId, everything))).toBeUndefined()
        // Yielding lets the copy take a step between writes; the first products are read in its
        // first step, before they are written to.
        for (const id of ids.slice(0, 10)) {
          yield* Effect.yieldNow()
          yield* run(products.update(id, randomProduct()))
        }
        yield* run(products.delete(ids[10]!))
        yield* compare(fresh)

        // The organization's deletion takes its products with it, which no product event names.
        const organizations = yield* run(Organizations)
        const { slug } = yield* run(organizations.current)
        yield* run(organizations.delete(organizationId, slug))
        const counted = (tallies: FacetTallies | undefined) => (tallies?.groups ?? []).reduce((n, g) => n + g.count, 0)
        expect(counted(yield* uow.tenant(organizationId, index.tallies(organizationId, everything)))).toBe(0)
      }).pipe(Effect.scoped), 60_000)
  })

facetsFromMemory("sqlite", SqliteStorage.layer(":memory:"))
if (postgres) facetsFromMemory("postgres", postgresStorage)

describe.runIf(postgres)("postgres: facets from memory, commit order", () => {
  it.live("read a write that commits after a newer event was read", () =>
    Effect.gen(function*() {
      const { organizationId, products, run, sql, tenant, uow } = yield* catalogOn(postgresStorage)
      const family = yield* run(familyWith(tenant, "product", []))
      const before = yield* run(products.create({ name: "before", familyId: family.id }))

      const index = yield* makeFacetIndex(sql, { maxProducts: 1_000_000, maxOrganizations: 10_000, buildStep: 7 })
      yield* index.ready(organizationId)
      const everything: FacetQuestion = { filter: { includeDescendants: false }, accepts: () => true, subtree: undefined, tree: [] }
      const counted = uow.tenant(organizationId, index.tallies(organizationId, everything)).pipe(
        Effect.map((t) => t?.groups.reduce((n, g) => n + g.count, 0)),
        Effect.orDie
      )

      // One write takes its event's number and waits to commit while a later one commits.
      const written = yield* Deferred.make<string>()
      const commit = yield* Deferred.make<void>()
      const late = yield* Effect.fork(run(uow.tenant(organizationId, Effect.gen(function*() {
        const p = yield* products.create({ name: "late", familyId: family.id })
        yield* Deferred.succeed(written, p.id)
        yield* Deferred.await(commit)
      }))))
      const lateId = yield* Deferred.await(written)
      const early = yield* run(products.create({ name: "early", familyId: family.id }))
      expect(yield* counted).toBe(2)
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(late)

      const numbered = yield* run(uow.system(sql<{ entityId: string }>`select entity_id from events
        where organization_id = ${organizationId} and name = 'product.created' order by seq`))
      expect(numbered.map((e) => e.entityId)).toEqual([before.id, lateId, early.id])
      expect(yield* counted).toBe(3)
    }).pipe(Effect.scoped), 60_000)
})

describe.runIf(postgres)("postgres: facets from memory, concurrent requests", () => {
  it.live("count what the indexes count after requests caught the copy up at once while writes committed", () =>
    Effect.gen(function*() {
      const { organizationId, products, run, sql, tenant, uow } = yield* catalogOn(postgresStorage)
      const family = yield* run(familyWith(tenant, "product", []))
      const random = generator(11)
      const ids: Array<string> = []
      for (let b = 0; b < 3; b++) {
        const created = yield* run(products.bulk(Array.from({ length: 500 }, (_, i) => ({ op: "create" as const, familyId: family.id, name: `p ${b}-${i}` }))))
        for (const r of created) if (r.ok) ids.push(r.id)
      }
      expect(ids).toHaveLength(1_500)
      const index = yield* makeFacetIndex(sql, { maxProducts: 1_000_000, maxOrganizations: 10_000, buildStep: 500 })
      yield* index.ready(organizationId)
      const everything: FacetQuestion = { filter: { includeDescendants: false }, accepts: () => true, subtree: undefined, tree: [] }
      const option: FacetOptions = { caps: { families: 50, statuses: 3, categories: 30, brands: 30, connectors: 20, tags: 30 }, includeEmpty: false }
      const statusesOf = (t: FacetTallies | undefined) =>
        Object.fromEntries(STATUSES.map((s) => [s, (t?.groups ?? []).filter((g) => g.status === s).reduce((n, g) => n + g.count, 0)]))

      // Every round changes every product while requests catch the copy up, then checks it.
      for (let round = 0; round < 8; round++) {
        const writes = Effect.forEach(Array.from({ length: 15 }, (_, b) => b), (b) =>
          run(products.bulk(ids.slice(b * 100, b * 100 + 100).map((id) => ({ op: "update" as const, id, status: STATUSES[Math.floor(random() * 3)]! })))),
          { concurrency: 3, discard: true })
        const reads = Effect.forEach(Array.from({ length: 24 }, (_, i) => i), () =>
          uow.tenant(organizationId, index.tallies(organizationId, everything)).pipe(Effect.orDie),
          { concurrency: 6, discard: true })
        yield* Effect.all([writes, reads], { concurrency: 2, discard: true })
        const fromMemory = yield* uow.tenant(organizationId, index.tallies(organizationId, everything)).pipe(Effect.orDie)
        const fromIndexes = yield* uow.tenant(organizationId, facetsOf(sql, organizationId, { includeDescendants: false }, undefined, option)).pipe(Effect.orDie)
        expect(statusesOf(fromMemory), `round ${round}`).toEqual(Object.fromEntries(STATUSES.map((s) => [s, fromIndexes.statuses.find((x) => x.value === s)?.count ?? 0])))
      }
    }).pipe(Effect.scoped), 120_000)
})
