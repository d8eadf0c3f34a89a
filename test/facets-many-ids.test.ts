import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { facetsOf } from "../adapters/sql/ProductFacets.js"
import type { Storage } from "../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import type { FacetOptions } from "../core/products/ProductFilter.js"
import { Products } from "../core/products/Products.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { familyWith } from "./support/Families.js"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"

const postgres = await postgresAvailable()

const option: FacetOptions = { caps: { families: 50, statuses: 3, categories: 30, brands: 30, connectors: 20, tags: 30 }, includeEmpty: false }

/**
 * Facets with a search, counted from the indexes (as while an organization's facet copy is
 * being made), filter on the search's matches as ids: a broad search on a large catalog
 * matches more products than SQLite takes parameters in one statement (32,766).
 */
const manyIds = (label: string, storage: Layer.Layer<Storage, unknown>) =>
  describe(`${label}: facets over many matched ids`, () => {
    it.live("count the products among 40,000 ids", () =>
      Effect.gen(function*() {
        const context = yield* Layer.build(catalogOver(storage))
        const { organization, tenant } = yield* Effect.provide(newTenant, context)
        const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
          effect.pipe(Effect.provideService(CurrentTenant, tenant), Effect.provide(context), Effect.orDie) as Effect.Effect<A>
        const products = yield* run(Products)
        const family = yield* run(familyWith(tenant, "product", []))
        const made = [] as Array<string>
        for (const name of ["a", "b", "c"]) made.push((yield* run(products.create({ name, familyId: family.id, status: "active" }))).id)
        const ids = [...Array.from({ length: 40_000 }, () => randomUUID()), ...made]
        const sql = yield* run(SqlClient.SqlClient)
        const uow = yield* run(UnitOfWork)
        const counts = yield* uow.tenant(organization.id, facetsOf(sql, organization.id, { includeDescendants: false, ids }, undefined, option))
        expect(counts.total).toBe(3)
        expect(counts.statuses).toEqual([{ value: "active", count: 3 }])
      }).pipe(Effect.scoped), 60_000)
  })

manyIds("sqlite", SqliteStorage.layer(":memory:"))
if (postgres) manyIds("postgres", postgresStorage)
