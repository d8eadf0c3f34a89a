import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { Products } from "../../core/products/Products.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { catalogOver } from "../support/Catalog.js"
import { inTenant, schemaFixture, val } from "../support/CatalogFixtures.js"

/** Product facet counts against one storage adapter. */
export const productFacetsSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
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

    it.effect("labels a family in the asked locale, else the default one, else en, else the locale that sorts first", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const families = yield* Families
          const products = yield* Products
          const family = yield* families.create({ code: "teas", label: { "zh-Hant": "茶", de: "Tee" } })
          yield* products.create({ familyId: family.id, name: "sencha" })
          const label = (locale?: string) =>
            Effect.map(products.facets(locale === undefined ? {} : { locale }), (f) => f.families[0]?.label)
          return { asked: yield* label("zh-Hant"), fallback: yield* label("fr") }
        }))
        expect(result).toEqual({ asked: "茶", fallback: "Tee" })
      }))

    it.effect("lists empty statuses with includeEmpty after the counted ones, in value order like every tie", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const brand = yield* (yield* Brands).create({ name: "Solo" })
          yield* products.create({ familyId: family.id, name: "only", brandId: brand.id, status: "active", attributes: { weight: val(1) } })
          return {
            one: yield* products.facets({ brandId: brand.id, includeEmpty: true }),
            none: yield* products.facets({ q: "nothing-matches-this", includeEmpty: true })
          }
        }))
        expect(result.one.statuses).toEqual([{ value: "active", count: 1 }, { value: "archived", count: 0 }, { value: "draft", count: 0 }])
        expect(result.none.statuses.map((s) => s.value)).toEqual(["active", "archived", "draft"])
      }))

    it.effect("orders ties by name in code point order, as the databases order names, however the counts are made", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          // U+FF5A (full-width z) sorts before U+1D400 (mathematical bold A) by code point, after
          // it by UTF-16 unit (a surrogate, 0xD835); plain `b` comes first either way.
          const names = ["\u{1D400}lpha", "\uFF5Aeta", "beta"]
          for (const name of names) {
            const category = yield* (yield* Categories).create({ name })
            const brand = yield* (yield* Brands).create({ name })
            yield* products.create({ familyId: family.id, name, categoryIds: [category.id], brandId: brand.id })
          }
          const plain = yield* products.facets({})
          const subtree = yield* products.facets({ includeDescendants: true })
          const empty = yield* products.facets({ q: "nothing-matches-this", includeEmpty: true })
          return {
            categories: plain.categories.map((c) => c.name),
            subtreeCategories: subtree.categories.map((c) => c.name),
            brands: plain.brands.map((b) => b.name),
            emptyCategories: empty.categories.map((c) => c.name),
            emptyBrands: empty.brands.map((b) => b.name)
          }
        }))
        const codePointOrder = ["beta", "\uFF5Aeta", "\u{1D400}lpha"]
        expect(result).toEqual({
          categories: codePointOrder,
          subtreeCategories: codePointOrder,
          brands: codePointOrder,
          emptyCategories: codePointOrder,
          emptyBrands: codePointOrder
        })
      }))

    it.effect("orders categories of the same name and count by id, so a request answers in one order", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const ids: Array<string> = []
          for (let i = 0; i < 4; i++) ids.push((yield* (yield* Categories).create({ name: "Same" })).id)
          // Filed newest category first, so that neither creation nor filing order is the id order's.
          for (const [i, id] of [...ids].reverse().entries()) {
            yield* products.create({ familyId: family.id, name: `same ${i}`, categoryIds: [id] })
          }
          const plain = yield* products.facets({})
          const subtree = yield* products.facets({ includeDescendants: true })
          const empty = yield* products.facets({ q: "nothing-matches-this", includeEmpty: true })
          return { ids, plain: plain.categories.map((c) => c.id), subtree: subtree.categories.map((c) => c.id), empty: empty.categories.map((c) => c.id) }
        }))
        const inIdOrder = [...result.ids].sort()
        expect(result).toEqual({ ids: result.ids, plain: inIdOrder, subtree: inIdOrder, empty: inIdOrder })
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
    it.effect("lists and counts a category's products over a subtree of more categories than a statement takes parameters", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const sql = yield* SqlClient.SqlClient
          const uow = yield* UnitOfWork
          const { organizationId } = yield* CurrentTenant
          const root = yield* categories.create({ name: "Everything" })
          // A chain ten deep under the root, then 33,000 leaves under its first link, written in bulk.
          let parent = root.id
          const chain: Array<string> = []
          for (let depth = 0; depth < 10; depth++) {
            parent = (yield* categories.create({ name: `Level ${depth}`, parentId: parent })).id
            chain.push(parent)
          }
          const now = new Date().toISOString()
          const leaves = Array.from({ length: 33_000 }, (_, i) => ({
            id: crypto.randomUUID(),
            organizationId,
            parentId: chain[0]!,
            name: `Leaf ${i}`,
            nameKey: `leaf ${i}`,
            slug: `leaf-${i}`,
            position: i,
            attributes: "{}",
            createdAt: now,
            updatedAt: now
          }))
          for (let i = 0; i < leaves.length; i += 2000) {
            yield* uow.tenant(organizationId, sql`insert into categories ${sql.insert(leaves.slice(i, i + 2000))}`).pipe(Effect.orDie)
          }
          const outside = yield* categories.create({ name: "Elsewhere" })
          const deep = yield* products.create({ familyId: family.id, name: "deep", categoryIds: [chain[9]!] })
          const leaf = yield* products.create({ familyId: family.id, name: "leaf", categoryIds: [leaves[32_999]!.id] })
          yield* products.create({ familyId: family.id, name: "away", categoryIds: [outside.id] })
          const filter = { categoryId: root.id, includeDescendants: true }
          return {
            root: root.id,
            expected: [deep.id, leaf.id].sort(),
            listed: yield* products.list({ ...filter, withTotal: true }),
            facets: yield* products.facets(filter),
            chained: yield* products.facets({ ...filter, status: "draft" })
          }
        }))
        expect(result.listed.data.map((p) => p.id).sort()).toEqual(result.expected)
        expect(result.listed.total).toBe(2)
        expect(result.facets.total).toBe(2)
        expect(result.facets.categories.find((c) => c.id === result.root)?.count).toBe(2)
        expect(result.chained.total).toBe(2)
      }), 60_000)
  })
