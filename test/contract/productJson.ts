import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer, Option, Schema } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { Product, toProduct } from "../../core/products/Product.js"
import { ProductRepository } from "../../core/products/ProductRepository.js"
import type { ListProductsQuery } from "../../core/products/ProductQuery.js"
import { Products } from "../../core/products/Products.js"
import { ProductList } from "../../core/products/ProductResults.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { catalogOver, newTenant } from "../support/Catalog.js"

const val = (value: unknown) => [{ locale: null, channel: null, value }]

/** A family with one attribute of each shape a value can take. */
const family = Effect.gen(function*() {
  const attributes = yield* Attributes
  const families = yield* Families
  const created = [
    yield* attributes.create({ code: "price", label: { en: "Price" }, type: "money" }),
    yield* attributes.create({ code: "weight", label: { en: "Weight" }, type: "decimal" }),
    yield* attributes.create({ code: "fragile", label: { en: "Fragile" }, type: "boolean" }),
    yield* attributes.create({ code: "blurb", label: { en: "Blurb" }, type: "text", isLocalizable: true, isScopable: true }),
    yield* attributes.create({ code: "extra", label: { en: "Extra" }, type: "json" })
  ]
  const shoes = yield* families.create({ code: "shoes", label: { en: "Shoes" } })
  for (const a of created) yield* families.attach(shoes.id, { attributeId: a.id })
  return shoes
})

/** What `findJson` answers, parsed, next to the record's encoding by the `Product` schema. */
const bothReads = (organizationId: string, id: string) =>
  Effect.gen(function*() {
    const repo = yield* ProductRepository
    const uow = yield* UnitOfWork
    const json = yield* uow.read(organizationId, repo.findJson(organizationId, id))
    const record = yield* uow.read(organizationId, repo.findById(organizationId, id))
    return {
      json: Option.map(json, (text) => JSON.parse(text) as unknown),
      encoded: Option.map(record, (r) => Schema.encodeSync(Product)(toProduct(r)))
    }
  })

/** What `listJson` answers, parsed, next to `list`'s page encoded by the `ProductList` schema. */
const bothLists = (query: ListProductsQuery) =>
  Effect.gen(function*() {
    const products = yield* Products
    return {
      json: JSON.parse(yield* products.listJson(query)) as unknown,
      encoded: Schema.encodeSync(ProductList)(yield* products.list(query))
    }
  })

/** The product read as stored JSON against one storage adapter. */
export const productJsonSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("answers a product as the JSON its schema encodes, for text that needs escaping and values of every shape", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const ids = yield* Effect.provideService(
          Effect.gen(function*() {
            const products = yield* Products
            const shoes = yield* family
            const brand = yield* (yield* Brands).create({ name: "Acme" })
            const plain = yield* products.create({ familyId: shoes.id, name: "Plain" })
            const full = yield* products.create({
              familyId: shoes.id,
              name: "Quote \" backslash \\ tab \t newline \n ünïcödé ✓ 🥾 \u2028",
              brandId: brand.id,
              status: "active",
              tags: ["Trail Running", "Größe 42"],
              attributes: {
                price: val({ amount_cents: 12999, currency: "EUR" }),
                weight: val(0.1),
                fragile: val(false),
                blurb: [
                  { locale: null, channel: null, value: "plain \"quoted\"" },
                  { locale: "de", channel: "web", value: "grün </script>" }
                ],
                extra: val({ nested: [1, 2.5, -3e-7, null, true, { deep: "x" }] })
              }
            })
            yield* products.update(full.id, { name: "Renamed \u0001 control", attributes: { weight: val(1e21) } })
            return [plain.id, full.id]
          }),
          CurrentTenant,
          tenant
        )
        for (const id of ids) {
          const { encoded, json } = yield* bothReads(organization.id, id)
          expect(Option.isSome(json)).toBe(true)
          expect(json).toEqual(encoded)
        }
      }))

    it.effect("answers every kind of list page as the JSON its schema encodes, category ids in their order", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const pages = yield* Effect.provideService(
          Effect.gen(function*() {
            const products = yield* Products
            const categories = yield* Categories
            const shoes = yield* family
            const boots = yield* categories.create({ name: "Boots" })
            const sale = yield* categories.create({ name: "Sale" })
            const brand = yield* (yield* Brands).create({ name: "Acme" })
            yield* products.create({
              familyId: shoes.id,
              name: "Trail \"boot\" ✓",
              brandId: brand.id,
              tags: ["Trail", "Winter"],
              categoryIds: [sale.id, boots.id],
              attributes: { price: val({ amount_cents: 999, currency: "EUR" }), blurb: [{ locale: "de", channel: null, value: "grün" }] }
            })
            yield* products.create({ familyId: shoes.id, name: "City boot", categoryIds: [boots.id], attributes: { price: val({ amount_cents: 5, currency: "USD" }) } })
            yield* products.create({ familyId: shoes.id, name: "Plain" })
            const queries: ReadonlyArray<ListProductsQuery> = [
              {},
              { withTotal: true, limit: 2 },
              { offset: 1, limit: 1, withTotal: true },
              { sortBy: "attribute", sortAttribute: "price", sortDir: "desc" },
              { q: "boot", sortBy: "relevance" },
              { categoryId: boots.id, tag: ["trail"] },
              { slug: "no-such-product", withTotal: true }
            ]
            return yield* Effect.forEach(queries, bothLists)
          }),
          CurrentTenant,
          tenant
        )
        expect(pages.map((p) => (p.encoded.data as ReadonlyArray<unknown>).length)).toEqual([3, 2, 1, 3, 2, 1, 0])
        expect((pages[0]?.encoded.data[0] as { categoryIds?: unknown }).categoryIds).toHaveLength(2)
        for (const { encoded, json } of pages) expect(json).toEqual(encoded)
      }))

    it.effect("answers none for a product of another organization, and NotFound through the use case", () =>
      Effect.gen(function*() {
        const owner = yield* newTenant
        const other = yield* newTenant
        const id = yield* Effect.provideService(
          Effect.gen(function*() {
            const shoes = yield* family
            return (yield* (yield* Products).create({ familyId: shoes.id, name: "Mine" })).id
          }),
          CurrentTenant,
          owner.tenant
        )
        const seen = yield* bothReads(other.organization.id, id)
        const exit = yield* Effect.exit(Effect.provideService(Effect.flatMap(Products, (p) => p.json(id)), CurrentTenant, other.tenant))
        const own = yield* Effect.provideService(Effect.flatMap(Products, (p) => p.json(id)), CurrentTenant, owner.tenant)
        expect(Option.isNone(seen.json)).toBe(true)
        expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error._tag : "succeeded").toBe("NotFound")
        expect(JSON.parse(own)).toMatchObject({ id, name: "Mine" })
      }))
  })
