import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, type Layer, Option, Schema } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { Products } from "../../core/products/Products.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { catalogOver, newTenant } from "../support/Catalog.js"

const EventRow = Schema.Struct({ name: Schema.String, entityId: Schema.String, payload: Schema.Unknown })

const eventsOf = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const uow = yield* UnitOfWork
    const rows = yield* uow.tenant(organizationId, sql`select name, entity_id, payload from events where organization_id = ${organizationId} order by seq`)
    return (yield* Schema.decodeUnknown(Schema.Array(EventRow))(rows)).map((e) => ({
      ...e,
      payload: typeof e.payload === "string" ? JSON.parse(e.payload) : e.payload
    }))
  }).pipe(Effect.orDie)

const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert(Exit.isFailure(exit), "expected a failure")
    return JSON.stringify(exit.cause)
  })

/** "ok", the tag of the one failure, or the whole cause (a defect, an interruption). */
const outcomeOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isSuccess(exit) ? "ok" : Cause.isFailType(exit.cause) ? exit.cause.error._tag : Cause.pretty(exit.cause)

const val = (value: unknown) => [{ locale: null, channel: null, value }]

/** A family with `price` (money), `weight` (number, required), `blurb` (text) and `size` (measurement). */
const schemaFixture = Effect.gen(function*() {
  const attributes = yield* Attributes
  const families = yield* Families
  const price = yield* attributes.create({ code: "price", label: { en: "Price" }, type: "money" })
  const weight = yield* attributes.create({ code: "weight", label: { en: "Weight" }, type: "number", requirement: "required" })
  const blurb = yield* attributes.create({ code: "blurb", label: { en: "Blurb" }, type: "text" })
  const size = yield* attributes.create({ code: "size", label: { en: "Size" }, type: "measurement" })
  const family = yield* families.create({ code: "shoes", label: { en: "Shoes" } })
  for (const a of [price, weight, blurb, size]) yield* families.attach(family.id, { attributeId: a.id })
  return { family, price, weight, blurb }
})

/** Creates a product of the family by name, giving its id. */
const named = (familyId: string, name: string) => Effect.flatMap(Products, (products) => Effect.map(products.create({ familyId, name }), (p) => p.id))

/** A search's ids and total. */
const searched = (q: string, page: { readonly limit?: number; readonly offset?: number } = {}) =>
  Effect.flatMap(Products, (products) =>
    Effect.map(products.list({ q, ...page, withTotal: true }), (l) => ({ ids: l.data.map((p) => p.id), total: l.total })))

/** Products, categories and brands against one storage adapter. */
export const catalogSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    const inTenant = <A, Err>(f: Effect.Effect<A, Err, CurrentTenant | Products | Categories | Brands | Attributes | Families | SqlClient.SqlClient | UnitOfWork | Organizations>) =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        return yield* Effect.provideService(f, CurrentTenant, tenant).pipe(Effect.map((a) => ({ result: a, organizationId: organization.id })))
      })

    it.effect("creates a product with canonical tags and a slug from its name, and records product.created with it", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const created = yield* products.create({ familyId: family.id, name: "Café Crème Runner", tags: ["Summer Sale", "summer-sale", "!!!"] })
          const twin = yield* products.create({ familyId: family.id, name: "Café Crème Runner" })
          const clash = yield* failureOf(products.create({ familyId: family.id, name: "Other", slug: created.slug }))
          return { created, twin, clash }
        }))
        expect(result.created.slug).toBe("cafe-creme-runner")
        expect(result.created.tags).toEqual(["summer-sale"])
        expect(result.created.status).toBe("draft")
        expect(result.twin.slug).not.toBe(result.created.slug)
        expect(result.clash).toContain("Conflict")
        const events = yield* eventsOf(organizationId)
        expect(events.filter((e) => e.name === "product.created").map((e) => e.entityId)).toEqual([result.created.id, result.twin.id])
      }))

    it.effect("gives concurrent writes of one name distinct generated slugs, never a conflict", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const times = <A, Err, R>(n: number, f: () => Effect.Effect<A, Err, R>) =>
            Effect.all(Array.from({ length: n }, f), { concurrency: "unbounded" })
          const created = yield* times(8, () => products.create({ familyId: family.id, name: "Same Generated Name" }))
          const bulked = yield* times(4, () => products.bulk([{ op: "create", familyId: family.id, name: "Bulk Same" }]))
          const cats = yield* times(6, () => categories.create({ name: "Same Cat" }))
          // Brand names are unique, so six names that all make the slug `acme`.
          const brandsMade = yield* Effect.all(["Acme!", "Acme?", "Acme#", "Acme.", "Acme,", "Acme;"].map((name) => brands.create({ name })), {
            concurrency: "unbounded"
          })
          return { created, bulked, cats, brandsMade }
        }))
        const distinct = (slugs: ReadonlyArray<string>) => new Set(slugs).size
        expect(distinct(result.created.map((p) => p.slug))).toBe(8)
        expect(result.bulked.flat().map((r) => r.ok)).toEqual([true, true, true, true])
        expect(distinct(result.cats.map((c) => c.slug))).toBe(6)
        expect(distinct(result.brandsMade.map((b) => b.slug))).toBe(6)
        expect(result.created.map((p) => p.slug)).toContain("same-generated-name")
      }))

    it.effect("stops finding a product by the text of an attribute once the attribute is deleted", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, blurb } = yield* schemaFixture
          const products = yield* Products
          const attributes = yield* Attributes
          const p = yield* products.create({ familyId: family.id, name: "Quiet kettle", attributes: { blurb: val("zanzibarite glaze") } })
          const before = yield* searched("zanzibarite")
          yield* attributes.delete(blurb.id)
          return { p, before, after: yield* searched("zanzibarite"), near: yield* searched("zanzibarit"), byName: yield* searched("kettle") }
        }))
        expect(result.before.ids).toEqual([result.p.id])
        expect(result.after).toEqual({ ids: [], total: 0 })
        expect(result.near.ids).toEqual([])
        expect(result.byName.ids).toEqual([result.p.id])
      }))

    it.effect("never lets two concurrent moves make a cycle of categories", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const outcomes: Array<ReadonlyArray<boolean>> = []
          for (let round = 0; round < 5; round++) {
            const a = yield* categories.create({ name: `A ${round}` })
            const b = yield* categories.create({ name: `B ${round}` })
            const moves = yield* Effect.all([
              Effect.either(categories.update(a.id, { parentId: b.id })),
              Effect.either(categories.update(b.id, { parentId: a.id }))
            ], { concurrency: "unbounded" })
            outcomes.push(moves.map((m) => m._tag === "Right"))
          }
          return outcomes
        }))
        for (const moved of result) expect(moved.filter(Boolean)).toHaveLength(1)
      }))

    it.effect("merges a patch per code and scope, removes entries sent with value null, and lists what changed", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const p = yield* products.create({
            familyId: family.id,
            name: "Boot",
            attributes: { blurb: val("warm"), price: val({ amount_cents: 1000, currency: "EUR" }) }
          })
          const patched = yield* products.update(p.id, { name: "Winter boot", attributes: { blurb: val(null), weight: val(2) } })
          const unchanged = yield* products.update(p.id, { name: "Winter boot" })
          // Sent again with its keys in another order: the same value (Postgres keeps jsonb keys in an order of its own).
          yield* products.update(p.id, { attributes: { price: val({ currency: "EUR", amount_cents: 1000 }), weight: val(2) } })
          return { p, patched, unchanged }
        }))
        expect(result.patched.attributes).toEqual({ price: val({ amount_cents: 1000, currency: "EUR" }), weight: val(2) })
        expect(result.unchanged.updatedAt).toBe(result.patched.updatedAt)
        const updates = (yield* eventsOf(organizationId)).filter((e) => e.name === "product.updated")
        expect(updates).toHaveLength(1)
        expect(updates[0]?.payload).toEqual({ changed_fields: ["name", "attributes.blurb", "attributes.weight"] })
      }))

    it.effect("keeps every one of concurrent patches of one product, each merged into what the others wrote", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const patches = [
            { blurb: val("warm") },
            { weight: val(2) },
            { price: val({ amount_cents: 1000, currency: "EUR" }) },
            { size: val({ amount: 42, unit: "eu" }) }
          ]
          const rounds = []
          for (let round = 0; round < 3; round++) {
            const p = yield* products.create({ familyId: family.id, name: `Boot ${round}` })
            yield* Effect.all(patches.map((attributes) => products.update(p.id, { attributes })), { concurrency: "unbounded" })
            rounds.push(yield* products.get(p.id, {}))
          }
          return rounds
        }))
        for (const p of result) expect(Object.keys(p.attributes).sort()).toEqual(["blurb", "price", "size", "weight"])
        const changed = (yield* eventsOf(organizationId)).filter((e) => e.name === "product.updated").map((e) => e.payload)
        expect(changed).toHaveLength(12)
        for (const payload of changed) expect((payload as { changed_fields: Array<string> }).changed_fields).toHaveLength(1)
      }))

    it.effect("runs concurrent bulk batches over the same products in opposite orders, keeping every change", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const ids = yield* Effect.all(Array.from({ length: 20 }, (_, i) => named(family.id, `Lamp ${i}`)))
          const batch = (order: ReadonlyArray<string>, attributes: Record<string, ReturnType<typeof val>>) =>
            products.bulk(order.map((id) => ({ op: "update" as const, id, attributes })))
          const results = yield* Effect.all([
            batch(ids, { blurb: val("bright") }),
            batch([...ids].reverse(), { weight: val(3) }),
            batch(ids, { price: val({ amount_cents: 500, currency: "EUR" }) })
          ], { concurrency: "unbounded" })
          const after = yield* Effect.all(ids.map((id) => products.get(id, {})))
          return { results, after }
        }))
        for (const r of result.results) expect(r.map((item) => item.ok)).toEqual(Array.from({ length: 20 }, () => true))
        for (const p of result.after) expect(Object.keys(p.attributes).sort()).toEqual(["blurb", "price", "weight"])
      }))

    it.effect("refuses activation while a required attribute is unfilled, naming it, and allows it once filled", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const refusedAtBirth = yield* failureOf(products.create({ familyId: family.id, name: "X", status: "active" }))
          const p = yield* products.create({ familyId: family.id, name: "Y" })
          const refused = yield* failureOf(products.update(p.id, { status: "active" }))
          const still = yield* products.get(p.id, {})
          const active = yield* products.update(p.id, { status: "active", attributes: { weight: val(3) } })
          return { refusedAtBirth, refused, still, active }
        }))
        expect(result.refusedAtBirth).toContain("required_attribute_missing")
        expect(result.refused).toContain("\"weight\"")
        expect(result.still.status).toBe("draft")
        expect(result.active.status).toBe("active")
      }))

    it.effect("resolves values for a locale and channel, falling back to the null entries", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          const title = yield* attributes.create({ code: "title", label: { en: "Title" }, type: "text", isLocalizable: true })
          const blurb = yield* attributes.create({ code: "blurb", label: { en: "Blurb" }, type: "text" })
          const family = yield* families.create({ code: "books", label: { en: "Books" } })
          yield* families.attach(family.id, { attributeId: title.id })
          yield* families.attach(family.id, { attributeId: blurb.id })
          const products = yield* Products
          const p = yield* products.create({
            familyId: family.id,
            name: "Book",
            attributes: {
              title: [{ locale: "de", channel: null, value: "Buch" }, { locale: null, channel: null, value: "Livre" }],
              blurb: val("plain")
            }
          })
          return {
            de: yield* products.get(p.id, { locale: "de" }),
            fr: yield* products.get(p.id, { locale: "fr" }),
            raw: yield* products.get(p.id, {})
          }
        }))
        expect(result.de.resolvedAttributes).toEqual({ title: "Buch", blurb: "plain" })
        expect(result.fr.resolvedAttributes).toEqual({ title: "Livre", blurb: "plain" })
        expect(result.raw.resolvedAttributes).toBeUndefined()
      }))

    it.effect("sorts and filters by money amount_cents at the default scope, products without the value last", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const mk = (name: string, cents: number | null) =>
            products.create({ familyId: family.id, name, attributes: cents === null ? {} : { price: val({ amount_cents: cents, currency: "EUR" }) } })
          const p500 = yield* mk("a", 500)
          const none = yield* mk("b", null)
          const p1500 = yield* mk("c", 1500)
          const p1000 = yield* mk("d", 1000)
          const ids = (q: Parameters<typeof products.list>[0]) => Effect.map(products.list({ familyId: family.id, ...q }), (l) => l.data.map((p) => p.id))
          return {
            expected: { p500: p500.id, none: none.id, p1000: p1000.id, p1500: p1500.id },
            asc: yield* ids({ sortBy: "attribute", sortAttribute: "price" }),
            desc: yield* ids({ sortBy: "attribute", sortAttribute: "price", sortDir: "desc" }),
            secondPage: yield* ids({ sortBy: "attribute", sortAttribute: "price", limit: 2, offset: 2 }),
            bounded: yield* ids({ filterAttribute: "price", filterMin: 600, filterMax: 1500, sortBy: "attribute", sortAttribute: "price" }),
            measurement: yield* failureOf(products.list({ sortBy: "attribute", sortAttribute: "size" })),
            unknown: yield* failureOf(products.list({ filterAttribute: "nosuch", filterMin: 1 })),
            relevanceWithoutQ: yield* failureOf(products.list({ sortBy: "relevance" }))
          }
        }))
        const { p500, none, p1000, p1500 } = result.expected
        expect(result.asc).toEqual([p500, p1000, p1500, none])
        expect(result.desc).toEqual([p1500, p1000, p500, none])
        expect(result.secondPage).toEqual([p1500, none])
        expect(result.bounded).toEqual([p1000, p1500])
        expect(result.measurement).toContain("unsupported_attribute_type")
        expect(result.unknown).toContain("unknown_attribute")
        expect(result.relevanceWithoutQ).toContain("ValidationFailed")
      }))

    it.effect("finds near misses of words up to 32 characters, and longer words only as written", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const long = `${"abcdefghij".repeat(4)}`
          yield* named(family.id, `Part ${long}`)
          yield* named(family.id, "Part antidisestablishmentarianism")
          return {
            exact: yield* searched(long),
            mistyped: yield* searched(`${long.slice(0, 20)}x${long.slice(21)}`),
            mistyped28: yield* searched("antidisestablishmentarainism")
          }
        }))
        expect(result.exact.total).toBe(1)
        expect(result.mistyped.total).toBe(0)
        expect(result.mistyped28.total).toBe(1)
      }))

    it.effect("searches name, slug and attribute text, finding prefixes and typos, kept in step with updates", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const jacket = yield* products.create({ familyId: family.id, name: "Waterproof jacket" })
          const fibre = yield* products.create({ familyId: family.id, name: "Plain", attributes: { blurb: val("Made from merino fibre") } })
          yield* products.create({ familyId: family.id, name: "Garden hose" })
          const ids = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          const found = { exact: yield* ids("jacket"), prefix: yield* ids("waterpr"), typo: yield* ids("jackte"), attribute: yield* ids("merino") }
          yield* products.update(fibre.id, { attributes: { blurb: val("Made from cotton") } })
          return { jacket: jacket.id, fibre: fibre.id, found, afterUpdate: yield* ids("merino") }
        }))
        expect(result.found.exact).toEqual([result.jacket])
        expect(result.found.prefix).toEqual([result.jacket])
        expect(result.found.typo).toEqual([result.jacket])
        expect(result.found.attribute).toEqual([result.fibre])
        expect(result.afterUpdate).toEqual([])
      }))

    it.effect("ranks exact matches before near misses, pages across both and counts them all", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const mk = (name: string) => named(family.id, name)
          const swapped = yield* mk("Kettel classic")
          const kettles = [yield* mk("Steel kettle"), yield* mk("Kettle large")]
          const ketel = yield* mk("Ketel with one letter missing")
          yield* mk("Kestrel lamp")
          yield* mk("Jacket")
          const wireless = yield* mk("Wireless speaker")
          const page = (q: string, limit: number, offset: number) => searched(q, { limit, offset })
          return {
            expected: { swapped, kettles, ketel, wireless },
            all: yield* page("kettel", 10, 0),
            first: yield* page("kettel", 2, 0),
            rest: yield* page("kettel", 2, 2),
            prefix: yield* page("wireles", 10, 0),
            typoPrefix: yield* page("wirelss", 10, 0),
            short: yield* page("lamb", 10, 0),
            none: yield* page("zzzzzz", 10, 0)
          }
        }))
        const { swapped, kettles, ketel, wireless } = result.expected
        expect(result.all.ids[0]).toBe(swapped)
        expect(new Set(result.all.ids.slice(1))).toEqual(new Set([...kettles, ketel]))
        expect(result.all.total).toBe(4)
        expect([...result.first.ids, ...result.rest.ids]).toEqual(result.all.ids)
        expect(result.first.total).toBe(4)
        expect(result.prefix).toEqual({ ids: [wireless], total: 1 })
        expect(result.typoPrefix).toEqual({ ids: [wireless], total: 1 })
        expect(result.short).toEqual({ ids: [], total: 0 })
        expect(result.none).toEqual({ ids: [], total: 0 })
      }))

    it.effect("matches every word of a query, shorter words exactly", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const mk = (name: string) => named(family.id, name)
          const both = yield* mk("Waterproof jacket XL")
          const typo = yield* mk("Waterproff jacket")
          yield* mk("Waterproof boots")
          yield* mk("Rain jacket XL")
          return { both, typo, two: yield* searched("waterproof jacket"), withShort: yield* searched("jacket xl waterproof") }
        }))
        expect(result.two).toEqual({ ids: [result.both, result.typo], total: 2 })
        expect(result.withShort).toEqual({ ids: [result.both], total: 1 })
      }))

    it.effect("counts facets with every other filter applied, and categories over their subtree when asked", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const root = yield* categories.create({ name: "Footwear" })
          const child = yield* categories.create({ name: "Boots", parentId: root.id })
          const brand = yield* brands.create({ name: "Acme" })
          yield* products.create({ familyId: family.id, name: "a", categoryIds: [child.id], brandId: brand.id, tags: ["Red"] })
          yield* products.create({ familyId: family.id, name: "b", categoryIds: [root.id], tags: ["red", "blue"], status: "archived" })
          yield* products.create({ familyId: family.id, name: "c" })
          return {
            root: root.id,
            child: child.id,
            brand: brand.id,
            plain: yield* products.facets({ status: "draft" }),
            subtree: yield* products.facets({ includeDescendants: true }),
            listed: yield* products.list({ categoryId: root.id, includeDescendants: true }),
            direct: yield* products.list({ categoryId: root.id })
          }
        }))
        expect(result.plain.total).toBe(2)
        expect(result.plain.statuses).toEqual([{ value: "draft", count: 2 }, { value: "archived", count: 1 }])
        expect(result.plain.tags).toEqual([{ value: "red", count: 1 }])
        expect(result.plain.brands).toEqual([{ id: result.brand, name: "Acme", count: 1 }])
        expect(result.plain.families[0]).toMatchObject({ code: "shoes", label: "Shoes", count: 2 })
        const count = (f: typeof result.subtree, id: string) => f.categories.find((c) => c.id === id)?.count
        expect(count(result.plain, result.root)).toBe(undefined)
        expect(count(result.subtree, result.root)).toBe(2)
        expect(count(result.subtree, result.child)).toBe(1)
        expect(result.listed.data).toHaveLength(2)
        expect(result.direct.data).toHaveLength(1)
        expect(result.listed.data.every((p) => p.thumbnailUrl === null && p.categoryIds.length === 1)).toBe(true)
      }))

    it.effect("counts facets over a search's matches, near misses included, with the other filters applied", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const shoes = yield* (yield* Categories).create({ name: "Shoes" })
          const acme = yield* (yield* Brands).create({ name: "Acme" })
          const mk = (name: string, status: "draft" | "active", more: { categoryIds?: Array<string>; brandId?: string; tags?: Array<string> }) =>
            products.create({ familyId: family.id, name, status, attributes: { weight: val(1) }, ...more })
          yield* mk("Red jacket", "active", { categoryIds: [shoes.id], brandId: acme.id, tags: ["x"] })
          yield* mk("Blue jakcet", "draft", { categoryIds: [shoes.id] })
          yield* mk("Green jacket", "draft", { brandId: acme.id, tags: ["x", "y"] })
          yield* mk("Lamp", "active", { categoryIds: [shoes.id], brandId: acme.id, tags: ["x"] })
          const summary = (f: Effect.Effect.Success<ReturnType<typeof products.facets>>) => ({
            total: f.total,
            statuses: f.statuses,
            categories: f.categories.map((c) => c.count),
            brands: f.brands.map((b) => b.count),
            tags: f.tags
          })
          return {
            all: summary(yield* products.facets({ q: "jacket" })),
            active: summary(yield* products.facets({ q: "jacket", status: "active" })),
            filed: summary(yield* products.facets({ q: "jacket", categoryId: shoes.id }))
          }
        }))
        expect(result.all).toEqual({
          total: 3,
          statuses: [{ value: "draft", count: 2 }, { value: "active", count: 1 }],
          categories: [2],
          brands: [2],
          tags: [{ value: "x", count: 2 }, { value: "y", count: 1 }]
        })
        expect(result.active).toEqual({
          total: 1,
          statuses: [{ value: "draft", count: 2 }, { value: "active", count: 1 }],
          categories: [1],
          brands: [1],
          tags: [{ value: "x", count: 1 }]
        })
        expect(result.filed).toEqual({
          total: 2,
          statuses: [{ value: "active", count: 1 }, { value: "draft", count: 1 }],
          categories: [2],
          brands: [1],
          tags: [{ value: "x", count: 1 }]
        })
      }))

    it.effect("counts a product once under an ancestor even when it is filed in two of its categories", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const root = yield* categories.create({ name: "Outdoor" })
          const a = yield* categories.create({ name: "Tents", parentId: root.id })
          const b = yield* categories.create({ name: "Stoves", parentId: root.id })
          yield* products.create({ familyId: family.id, name: "both", categoryIds: [a.id, b.id] })
          yield* products.create({ familyId: family.id, name: "one", categoryIds: [b.id], status: "archived" })
          return {
            ids: { root: root.id, a: a.id, b: b.id },
            all: yield* products.facets({ includeDescendants: true }),
            drafts: yield* products.facets({ includeDescendants: true, status: "draft" })
          }
        }))
        const count = (f: typeof result.all, id: string) => f.categories.find((c) => c.id === id)?.count
        expect(count(result.all, result.ids.root)).toBe(2)
        expect(count(result.all, result.ids.a)).toBe(1)
        expect(count(result.all, result.ids.b)).toBe(2)
        expect(result.all.categories.map((c) => c.id)).toEqual([result.ids.root, result.ids.b, result.ids.a])
        expect(count(result.drafts, result.ids.root)).toBe(1)
        expect(count(result.drafts, result.ids.b)).toBe(1)
      }))

    it.effect("counts subtrees exactly under other filters, for products in three categories and after a category's deletion", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const acme = yield* brands.create({ name: "Acme" })
          const root = yield* categories.create({ name: "Garden" })
          const a = yield* categories.create({ name: "Tools", parentId: root.id })
          const b = yield* categories.create({ name: "Seeds", parentId: root.id })
          const c = yield* categories.create({ name: "Pots", parentId: b.id })
          const gone = yield* categories.create({ name: "Sale" })
          yield* products.create({ familyId: family.id, name: "three", categoryIds: [a.id, b.id, c.id], brandId: acme.id })
          yield* products.create({ familyId: family.id, name: "other", categoryIds: [b.id, c.id] })
          // Left with one link, at position 1, once "Sale" is gone.
          yield* products.create({ familyId: family.id, name: "moved", categoryIds: [gone.id, c.id], brandId: acme.id })
          yield* categories.delete(gone.id)
          return {
            ids: { root: root.id, a: a.id, b: b.id, c: c.id },
            all: yield* products.facets({ includeDescendants: true }),
            acme: yield* products.facets({ includeDescendants: true, brandId: acme.id }),
            underB: yield* products.facets({ includeDescendants: true, brandId: acme.id, categoryId: b.id })
          }
        }))
        const counts = (f: typeof result.all) => Object.fromEntries(f.categories.map((x) => [x.id, x.count]))
        const { a, b, c, root } = result.ids
        expect(counts(result.all)).toEqual({ [root]: 3, [a]: 1, [b]: 3, [c]: 3 })
        expect(counts(result.acme)).toEqual({ [root]: 2, [a]: 1, [b]: 2, [c]: 2 })
        // The category filter is left out of its own dimension; the others see both Acme products under Seeds.
        expect(counts(result.underB)).toEqual(counts(result.acme))
        expect(result.underB.total).toBe(2)
        expect(result.underB.brands.map((x) => x.count)).toEqual([2])
      }))

    it.effect("keeps tags, category links and sort numbers in step with updates that change some of them", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const [a, b, c] = [yield* categories.create({ name: "A" }), yield* categories.create({ name: "B" }), yield* categories.create({ name: "C" })]
          const acme = yield* brands.create({ name: "Acme" })
          const other = yield* brands.create({ name: "Other" })
          const price = (cents: number) => ({ price: val({ amount_cents: cents, currency: "EUR" }) })
          const p = yield* products.create({
            familyId: family.id,
            name: "p",
            tags: ["keep", "drop"],
            categoryIds: [a.id, b.id],
            brandId: acme.id,
            attributes: price(500)
          })
          const q = yield* products.create({ familyId: family.id, name: "q", attributes: price(700) })
          const ids = (query: Parameters<typeof products.list>[0]) =>
            Effect.map(products.list({ familyId: family.id, ...query }), (l) => l.data.map((x) => x.id))
          const state = Effect.gen(function*() {
            return {
              keep: yield* ids({ tag: ["keep"] }),
              drop: yield* ids({ tag: ["drop"] }),
              added: yield* ids({ tag: ["added"] }),
              inA: yield* ids({ categoryId: a.id }),
              inB: yield* ids({ categoryId: b.id }),
              inC: yield* ids({ categoryId: c.id }),
              filed: (yield* products.list({ ids: [p.id] })).data[0]?.categoryIds,
              byPrice: yield* ids({ sortBy: "attribute", sortAttribute: "price" }),
              above600: yield* ids({ filterAttribute: "price", filterMin: 600 }),
              otherInC: (yield* products.facets({ categoryId: c.id, brandId: other.id })).total,
              otherInA: (yield* products.facets({ categoryId: a.id, brandId: other.id })).total
            }
          })
          yield* products.update(p.id, { name: "p2" })
          const renamed = yield* state
          yield* products.update(p.id, { tags: ["keep", "added"], categoryIds: [c.id, b.id, a.id], brandId: other.id, attributes: price(900) })
          const changed = yield* state
          // Only the brand: the links stay, their copy of it must follow.
          yield* products.update(p.id, { brandId: acme.id })
          const filedUnder = (brandId: string) =>
            Effect.map(products.facets({ familyId: family.id, brandId }), (f) => f.categories.map((x) => [x.id, x.count]))
          const rebranded = { acme: yield* filedUnder(acme.id), other: yield* filedUnder(other.id) }
          yield* products.update(p.id, { tags: [], categoryIds: [], attributes: { price: val(null) } })
          const cleared = yield* state
          return { ids: { p: p.id, q: q.id, a: a.id, b: b.id, c: c.id }, renamed, changed, rebranded, cleared }
        }))
        const { a, b, c, p, q } = result.ids
        expect(result.renamed).toEqual({
          keep: [p], drop: [p], added: [], inA: [p], inB: [p], inC: [], filed: [a, b], byPrice: [p, q], above600: [q], otherInC: 0, otherInA: 0
        })
        expect(result.changed).toEqual({
          keep: [p], drop: [], added: [p], inA: [p], inB: [p], inC: [p], filed: [c, b, a], byPrice: [q, p], above600: [p, q], otherInC: 1, otherInA: 1
        })
        expect(result.rebranded.acme).toEqual(expect.arrayContaining([[a, 1], [b, 1], [c, 1]]))
        expect(result.rebranded.acme).toHaveLength(3)
        expect(result.rebranded.other).toEqual([])
        expect(result.cleared).toEqual({
          keep: [], drop: [], added: [], inA: [], inB: [], inC: [], filed: [], byPrice: [q, p], above600: [q], otherInC: 0, otherInA: 0
        })
      }))

    it.effect("counts category-filtered facets in step with the products' status, brand and family changes", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, weight } = yield* schemaFixture
          const families = yield* Families
          const boots = yield* families.create({ code: "boots", label: { en: "Boots" } })
          yield* families.attach(boots.id, { attributeId: weight.id })
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const acme = yield* brands.create({ name: "Acme" })
          const other = yield* brands.create({ name: "Other" })
          const root = yield* categories.create({ name: "Shoes" })
          const left = yield* categories.create({ name: "Trail", parentId: root.id })
          const right = yield* categories.create({ name: "Road", parentId: root.id })
          const weighed = { weight: val(1) }
          const mk = (name: string, categoryIds: ReadonlyArray<string>, brandId: string, status: "draft" | "active", tags: ReadonlyArray<string>) =>
            products.create({ familyId: family.id, name, categoryIds, brandId, status, tags, attributes: weighed })
          yield* mk("p1", [left.id], acme.id, "active", ["x"])
          yield* mk("p2", [right.id], other.id, "draft", ["x", "y"])
          const p3 = yield* mk("p3", [left.id], acme.id, "draft", ["y"])
          yield* mk("p4", [], acme.id, "active", ["x"])
          const filter = { categoryId: root.id, includeDescendants: true, status: "active" } as const
          const before = yield* products.facets(filter)
          yield* products.update(p3.id, { status: "active" })
          yield* brands.delete(acme.id)
          const after = yield* products.facets(filter)
          const deletedBrand = yield* products.facets({ ...filter, brandId: acme.id })
          yield* products.update(p3.id, { familyId: boots.id })
          const byFamily = yield* products.facets({ ...filter, familyId: boots.id })
          return { ids: { root: root.id, left: left.id, acme: acme.id, family: family.id, boots: boots.id }, before, after, deletedBrand, byFamily }
        }))
        const { acme, boots, left, root } = result.ids
        const counts = (f: typeof result.before) => Object.fromEntries(f.categories.map((x) => [x.id, x.count]))
        expect(result.before.total).toBe(1)
        expect(result.before.statuses).toEqual([{ value: "draft", count: 2 }, { value: "active", count: 1 }])
        expect(result.before.brands).toEqual([{ id: acme, name: "Acme", count: 1 }])
        expect(result.before.tags).toEqual([{ value: "x", count: 1 }])
        expect(counts(result.before)).toEqual({ [root]: 1, [left]: 1 })

        expect(result.after.total).toBe(2)
        expect(result.after.statuses).toEqual([{ value: "active", count: 2 }, { value: "draft", count: 1 }])
        expect(result.after.brands).toEqual([])
        expect(result.after.tags).toEqual([{ value: "x", count: 1 }, { value: "y", count: 1 }])
        expect(counts(result.after)).toEqual({ [root]: 2, [left]: 2 })
        expect(result.deletedBrand.total).toBe(0)
        expect(result.deletedBrand.tags).toEqual([])

        expect(result.byFamily.total).toBe(1)
        expect(result.byFamily.families.map((f) => [f.id, f.count])).toEqual([[boots, 1], [result.ids.family, 1]])
        expect(result.byFamily.tags).toEqual([{ value: "y", count: 1 }])
        expect(counts(result.byFamily)).toEqual({ [root]: 1, [left]: 1 })
      }))

    it.effect("counts each facet dimension with the other dimensions' filters applied, and only those", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const brands = yield* Brands
          const acme = yield* brands.create({ name: "Acme" })
          const other = yield* brands.create({ name: "Other" })
          yield* products.create({ familyId: family.id, name: "a", brandId: acme.id, tags: ["x"] })
          yield* products.create({ familyId: family.id, name: "b", brandId: acme.id, status: "archived", tags: ["x"] })
          yield* products.create({ familyId: family.id, name: "c", brandId: other.id, tags: ["y"] })
          yield* products.create({ familyId: family.id, name: "d", tags: ["y"] })
          return {
            acme: acme.id,
            other: other.id,
            byId: yield* products.facets({ status: "draft", brandId: acme.id }),
            byName: yield* products.facets({ status: "draft", brand: "acme" })
          }
        }))
        for (const f of [result.byId, result.byName]) {
          // Both filters: only "a".
          expect(f.total).toBe(1)
          expect(f.families.map((x) => x.count)).toEqual([1])
          expect(f.tags).toEqual([{ value: "x", count: 1 }])
          // Statuses leave out the status filter: a (draft) and b (archived) of Acme.
          expect(f.statuses).toEqual([{ value: "archived", count: 1 }, { value: "draft", count: 1 }])
          // Brands leave out the brand filter: the drafts a (Acme), c (Other); d has no brand.
          expect(f.brands).toEqual([{ id: result.acme, name: "Acme", count: 1 }, { id: result.other, name: "Other", count: 1 }])
        }
      }))

    it.effect("answers the same pages whether a tag, category or range filter matches a few products or thousands", () =>
      Effect.gen(function*() {
        const count = 2600
        const tagged = (i: number) => i % 13 !== 0
        const shelved = (i: number) => i % 7 !== 0
        const priced = (i: number) => i % 11 !== 0
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const root = yield* categories.create({ name: "Everything" })
          const shelf = yield* categories.create({ name: "Shelf", parentId: root.id })
          const other = yield* categories.create({ name: "Other" })
          for (let from = 0; from < count; from += 500) {
            const items = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
              const i = from + k
              return {
                op: "create",
                familyId: family.id,
                name: `Product ${i}`,
                slug: `p-${String(i).padStart(4, "0")}`,
                tags: [...(tagged(i) ? ["common"] : []), ...(i % 500 === 1 ? ["rare"] : [])],
                categoryIds: [shelved(i) ? shelf.id : other.id],
                attributes: priced(i) ? { price: val({ amount_cents: i, currency: "EUR" }) } : {}
              }
            })
            const created = yield* products.bulk(items)
            assert(created.every((r) => r.ok), "every product is created")
          }
          const slugs = (q: Parameters<typeof products.list>[0]) =>
            Effect.map(products.list({ sortBy: "slug", ...q }), (l) => ({ slugs: l.data.map((p) => p.slug), total: l.total }))
          const dense = { tag: ["common"], categoryId: root.id, includeDescendants: true, filterAttribute: "price", filterMin: 0 }
          return {
            dense: yield* slugs({ ...dense, limit: 5, offset: 10, withTotal: true }),
            denseDesc: yield* slugs({ ...dense, sortDir: "desc", limit: 3 }),
            rare: yield* slugs({ tag: ["common", "rare"], categoryId: shelf.id }),
            narrowRange: yield* slugs({ tag: ["common"], filterAttribute: "price", filterMin: 1000, filterMax: 1010 }),
            none: yield* slugs({ tag: ["common", "missing"], categoryId: root.id, includeDescendants: true, withTotal: true })
          }
        }))
        const slug = (i: number) => `p-${String(i).padStart(4, "0")}`
        const all = Array.from({ length: count }, (_, i) => i)
        const matching = all.filter((i) => tagged(i) && shelved(i) && priced(i))
        expect(result.dense).toEqual({ slugs: matching.slice(10, 15).map(slug), total: matching.length })
        expect(result.denseDesc.slugs).toEqual(matching.slice(-3).reverse().map(slug))
        expect(result.rare.slugs).toEqual(all.filter((i) => i % 500 === 1 && tagged(i) && shelved(i)).map(slug))
        expect(result.narrowRange.slugs).toEqual(all.filter((i) => i >= 1000 && i <= 1010 && tagged(i) && priced(i)).map(slug))
        expect(result.none).toEqual({ slugs: [], total: 0 })
      }))

    it.effect("runs a bulk batch where each item stands alone, with one event per item that succeeded", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const existing = yield* products.create({ familyId: family.id, name: "Existing", slug: "taken" })
          const results = yield* products.bulk([
            { op: "create", familyId: family.id, name: "Same name" },
            { op: "create", familyId: family.id, name: "Same name" },
            { op: "create", familyId: family.id },
            { op: "create", familyId: family.id, name: "Clash", slug: "taken" },
            { op: "update", id: existing.id, name: "Renamed" },
            { op: "delete", id: existing.id },
            { op: "update", id: existing.id, name: "Gone" },
            { op: "explode" }
          ])
          return { results, listed: yield* products.list({ familyId: family.id }) }
        }))
        expect(result.results.map((r) => r.ok)).toEqual([true, true, false, false, true, true, false, false])
        expect(result.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
        const errors = result.results.flatMap((r) => (r.ok ? [] : [r.error._tag]))
        expect(errors).toEqual(["ValidationFailed", "Conflict", "NotFound", "ValidationFailed"])
        const slugs = result.listed.data.map((p) => p.slug)
        expect(new Set(slugs).size).toBe(2)
        const names = (yield* eventsOf(organizationId)).map((e) => e.name).filter((n) => n.startsWith("product."))
        expect(names).toEqual(["product.created", "product.created", "product.created", "product.updated", "product.deleted"])
      }))

    it.effect("keeps the category tree acyclic, refuses deleting a parent, and unfiles products of a deleted category", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const products = yield* Products
          const { family } = yield* schemaFixture
          const root = yield* categories.create({ name: "Root", attributes: { description: val("Top") } })
          const child = yield* categories.create({ name: "Child", parentId: root.id })
          const p = yield* products.create({ familyId: family.id, name: "Filed", categoryIds: [child.id] })
          const cycle = yield* failureOf(categories.update(root.id, { parentId: child.id }))
          const parentDelete = yield* failureOf(categories.delete(root.id))
          const undeclared = yield* failureOf(categories.create({ name: "Bad", attributes: { nosuch: val("x") } }))
          yield* categories.delete(child.id)
          const listed = yield* products.list({ ids: [p.id] })
          return { root, cycle, parentDelete, undeclared, listed, kids: yield* categories.list({ parentId: root.id }) }
        }))
        expect(result.root.attributes).toEqual({ description: val("Top") })
        expect(result.cycle).toContain("cycle")
        expect(result.parentDelete).toContain("Conflict")
        expect(result.undeclared).toContain("unknown_attribute")
        expect(result.listed.data[0]?.categoryIds).toEqual([])
        expect(result.kids).toEqual([])
        const names = (yield* eventsOf(organizationId)).map((e) => e.name).filter((n) => n.startsWith("category."))
        expect(names).toEqual(["category.created", "category.created", "category.deleted"])
      }))

    it.effect("refuses a brand name taken in any case, and clears a deleted brand from its products", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const products = yield* Products
          const { family } = yield* schemaFixture
          const acme = yield* brands.create({ name: "Acme" })
          const clash = yield* failureOf(brands.create({ name: "ACME", slug: "other" }))
          const p = yield* products.create({ familyId: family.id, name: "Branded", brandId: acme.id })
          yield* brands.delete(acme.id)
          return { clash, after: yield* products.get(p.id, {}), p }
        }))
        expect(result.clash).toContain("brand name ACME is taken")
        expect(result.after.brandId).toBeNull()
        expect(result.after.updatedAt >= result.p.updatedAt).toBe(true)
      }))

    it.effect("keeps every one of concurrent patches of one category or brand, each merged into what the others wrote", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const families = yield* Families
          const attributes = yield* Attributes
          const categories = yield* Categories
          const brands = yield* Brands
          const codes = ["description", "intro", "footer", "banner"]
          for (const entityKind of ["category", "brand"] as const) {
            const family = (yield* families.provisioned(entityKind)).family
            for (const code of codes.slice(1)) {
              const made = yield* attributes.create({ code, label: { en: code }, type: "text", entityKind })
              yield* families.attach(family.id, { attributeId: made.id })
            }
          }
          const kept = []
          for (let round = 0; round < 3; round++) {
            const category = yield* categories.create({ name: `Lights ${round}` })
            const brand = yield* brands.create({ name: `Lumen ${round}` })
            yield* Effect.all(codes.flatMap((code) => [
              categories.update(category.id, { attributes: { [code]: val(code) } }),
              brands.update(brand.id, { attributes: { [code]: val(code) } })
            ]), { concurrency: "unbounded" })
            kept.push(Object.keys((yield* categories.get(category.id)).attributes), Object.keys((yield* brands.get(brand.id)).attributes))
          }
          return { kept, codes }
        }))
        for (const keys of result.kept) expect([...keys].sort()).toEqual([...result.codes].sort())
      }))

    it.effect("answers writes racing a brand's or category's deletion as if they came before it or after it", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const sql = yield* SqlClient.SqlClient
          const uow = yield* UnitOfWork
          const { organizationId } = yield* CurrentTenant
          const outcomes: Array<string> = []
          const leftovers: Array<unknown> = []
          // Products are filed in a category that stays too: the links there copy the brand.
          const stays = yield* categories.create({ name: "Garage" })
          for (let round = 0; round < 8; round++) {
            const brand = yield* brands.create({ name: `Racer ${round}` })
            const category = yield* categories.create({ name: `Track ${round}` })
            const creates = Array.from({ length: 6 }, (_, i) =>
              products.create({ familyId: family.id, name: `Kart ${round} ${i}`, brandId: brand.id, categoryIds: [stays.id, category.id] }))
            const exits = yield* Effect.all([...creates.map(Effect.exit), Effect.exit(brands.delete(brand.id)), Effect.exit(categories.delete(category.id))], {
              concurrency: "unbounded"
            })
            for (const exit of exits) {
              outcomes.push(outcomeOf(exit))
            }
            leftovers.push(...yield* uow.tenant(organizationId, sql`
              select 'product' as kind, id from products where brand_id = ${brand.id}
              union all select 'link', product_id from product_categories where brand_id = ${brand.id} or category_id = ${category.id}`))
          }
          return { outcomes, leftovers }
        }))
        for (const outcome of result.outcomes) expect(["ok", "ValidationFailed"]).toContain(outcome)
        expect(result.leftovers).toEqual([])
      }))

    it.effect("deletes an attribute's stored values from products, and the family in use answers Conflict", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, price } = yield* schemaFixture
          const products = yield* Products
          const attributes = yield* Attributes
          const families = yield* Families
          const p = yield* products.create({ familyId: family.id, name: "Priced", attributes: { price: val({ amount_cents: 1, currency: "EUR" }) } })
          const usage = yield* attributes.usage(price.id)
          yield* attributes.delete(price.id)
          const familyDelete = yield* failureOf(families.delete(family.id))
          return { usage, after: yield* products.get(p.id, {}), familyDelete }
        }))
        expect(result.usage.products).toBe(1)
        expect(result.after.attributes).toEqual({})
        expect(result.familyDelete).toContain("Conflict")
      }))

    /**
     * A product write that has checked and stored its `blurb` (text: nothing else references
     * the attribute) holds its transaction open while `change` runs beside it. Answers whether
     * `change` finished before the write committed, and the product once both are done.
     */
    const againstHeldWrite = (change: (blurb: { readonly id: string }) => Effect.Effect<unknown, unknown, Attributes | CurrentTenant>) =>
      inTenant(Effect.gen(function*() {
        const { family, blurb } = yield* schemaFixture
        const products = yield* Products
        const uow = yield* UnitOfWork
        const { organizationId } = yield* CurrentTenant
        const stored = yield* Deferred.make<string>()
        const commit = yield* Deferred.make<void>()
        const writing = yield* Effect.fork(uow.tenant(organizationId, Effect.gen(function*() {
          const p = yield* products.create({ familyId: family.id, name: "Late", attributes: { blurb: val("written late") } })
          yield* Deferred.succeed(stored, p.id)
          yield* Deferred.await(commit)
        })))
        const id = yield* Deferred.await(stored)
        const changing = yield* Effect.fork(change(blurb))
        // Ample time for the change to finish, were it not held back by the write (real time:
        // the test clock would never move on its own).
        yield* Effect.sleep("300 millis").pipe(Effect.withClock(Clock.make()))
        const finishedFirst = Option.isSome(yield* Fiber.poll(changing))
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(writing)
        yield* Fiber.join(changing)
        return { finishedFirst, after: yield* products.get(id, {}) }
      }))

    it.effect("takes along the value of a write that checked the attribute before its deletion and commits after it", () =>
      Effect.gen(function*() {
        const { result } = yield* againstHeldWrite((blurb) => Effect.flatMap(Attributes, (a) => a.delete(blurb.id)))
        expect(result.finishedFirst).toBe(false)
        expect(result.after.attributes).toEqual({})
      }))

    it.effect("moves to the new code the value of a write that checked the old code before a rename and commits after it", () =>
      Effect.gen(function*() {
        const { result } = yield* againstHeldWrite((blurb) => Effect.flatMap(Attributes, (a) => a.update(blurb.id, { code: "story" })))
        expect(result.finishedFirst).toBe(false)
        expect(result.after.attributes).toEqual({ story: val("written late") })
      }))

    it.effect("cascades an organization's deletion through its products, categories and brands", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const counts = yield* Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const category = yield* (yield* Categories).create({ name: "C" })
          const brand = yield* (yield* Brands).create({ name: "B" })
          yield* (yield* Products).create({ familyId: family.id, name: "P", categoryIds: [category.id], brandId: brand.id, tags: ["t"] })
          return yield* (yield* Organizations).delete(organization.id, organization.slug)
        }).pipe(Effect.provideService(CurrentTenant, tenant))
        expect(counts.deletedCounts).toMatchObject({ products: 1, categories: 1, brands: 1, product_tags: 1, product_categories: 1 })
      }))
  })
