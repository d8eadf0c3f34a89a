import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
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
import { eventsOf, failureOf, inTenant, outcomeOf, schemaFixture, val } from "../support/CatalogFixtures.js"

/** A localizable text attribute `code` attached to the family of `entityKind`, with that kind's service. */
const localizableText = (entityKind: "category" | "brand", code: string) =>
  Effect.gen(function*() {
    const families = yield* Families
    const family = (yield* families.provisioned(entityKind)).family
    const attribute = yield* (yield* Attributes).create({ code, label: { en: code }, type: "text", entityKind, isLocalizable: true })
    yield* families.attach(family.id, { attributeId: attribute.id })
    const records = entityKind === "category" ? yield* Categories : yield* Brands
    return { family, attribute, records }
  })

/** Categories, brands and the organization cascade over them, against one storage adapter. */
export const categoriesBrandsSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
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

    it.effect("keeps the category tree acyclic, refuses deleting a parent, and unfiles products of a deleted category", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const products = yield* Products
          const { family } = yield* schemaFixture
          const root = yield* categories.create({ name: "Root", attributes: { description: val("Top") } })
          const child = yield* categories.create({ name: "Child", parentId: root.id })
          const p = yield* products.create({ familyId: family.id, name: "Filed", categoryIds: [child.id] })
          const twice = yield* products.create({ familyId: family.id, name: "Twice", categoryIds: [child.id, root.id, child.id] })
          expect((yield* products.list({ ids: [twice.id] })).data[0]?.categoryIds).toEqual([child.id, root.id])
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
        const events = yield* eventsOf(organizationId)
        const names = events.map((e) => e.name).filter((n) => n.startsWith("category."))
        expect(names).toEqual(["category.created", "category.created", "category.deleted"])
        // The deletion is the one signal for the products it unfiles, as an attribute's is.
        expect(events.at(-1)?.name).toBe("category.deleted")
        expect(events.at(-1)?.payload).toEqual({ slug: "child", removed_from: { products: 2 } })
      }))

    it.effect("keeps a tree of any depth acyclic and counts its whole subtree", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const products = yield* Products
          const { family } = yield* schemaFixture
          const chain = [yield* categories.create({ name: "Level 0" })]
          for (let level = 1; level <= 1100; level++) {
            chain.push(yield* categories.create({ name: `Level ${level}`, parentId: chain[level - 1]!.id }))
          }
          const [top, bottom] = [chain[0]!, chain[chain.length - 1]!]
          const deep = yield* products.create({ familyId: family.id, name: "Deep", categoryIds: [bottom.id] })
          const cycle = yield* failureOf(categories.update(top.id, { parentId: bottom.id }))
          const listed = yield* products.list({ categoryId: top.id, includeDescendants: true })
          const facets = yield* products.facets({ includeDescendants: true, facetLimit: 200 })
          return { cycle, deep, listed, top, topCount: facets.categories.find((c) => c.id === top.id)?.count }
        }))
        expect(result.cycle).toContain("cycle")
        expect(result.listed.data.map((p) => p.id)).toEqual([result.deep.id])
        expect(result.topCount).toBe(1)
      }), { timeout: 120_000 })

    it.effect("names a category or brand whose name has nothing in a-z0-9 by its kind", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const brands = yield* Brands
          const first = yield* categories.create({ name: "日本" })
          const second = yield* categories.create({ name: "東京" })
          return { slugs: [first.slug, second.slug, (yield* brands.create({ name: "日本" })).slug], second }
        }))
        expect(result.slugs).toEqual(["category", `category-${result.second.id.replace(/-/g, "").slice(-8)}`, "brand"])
      }))

    it.effect("refuses a brand name taken in any case or spacing, and clears a deleted brand from its products", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const products = yield* Products
          const { family } = yield* schemaFixture
          const acme = yield* brands.create({ name: "Acme" })
          yield* products.create({ familyId: family.id, name: "Also branded", brandId: acme.id })
          yield* products.create({ familyId: family.id, name: "Unbranded" })
          const clash = yield* failureOf(brands.create({ name: "ACME", slug: "other" }))
          const spaced = yield* failureOf(brands.create({ name: " acme ", slug: "spaced" }))
          const p = yield* products.create({ familyId: family.id, name: "Branded", brandId: acme.id })
          const byName = (yield* products.list({ brand: "  ACME", withTotal: true })).total
          yield* brands.delete(acme.id)
          return { clash, spaced, byName, after: yield* products.get(p.id, {}), p }
        }))
        expect(result.clash).toContain("brand name ACME is taken")
        expect(result.spaced).toContain("is taken")
        expect(result.byName).toBe(2)
        expect(result.after.brandId).toBeNull()
        expect(result.after.updatedAt >= result.p.updatedAt).toBe(true)
        const events = yield* eventsOf(organizationId)
        expect(events.at(-1)?.name).toBe("brand.deleted")
        expect(events.at(-1)?.payload).toEqual({ slug: "acme", removed_from: { products: 2 } })
        expect(events.at(-2)?.name).toBe("product.created")
      }))

    it.effect("lists categories of one position, and brands, by name ignoring case, in code point order", () =>
      Effect.gen(function*() {
        const names = ["Zeta", "apple", "Éclair", "banana", "Apple"]
        const { result } = yield* inTenant(Effect.gen(function*() {
          const categories = yield* Categories
          const brands = yield* Brands
          const parent = yield* categories.create({ name: "Shelf" })
          for (const name of names) yield* categories.create({ name, parentId: parent.id })
          for (const name of names.filter((n) => n !== "Apple")) yield* brands.create({ name })
          return {
            categories: (yield* categories.list({ parentId: parent.id })).map((c) => c.name),
            brands: (yield* brands.list({})).map((b) => b.name)
          }
        }))
        // Two names of one key ("apple", "Apple") keep the order they were made in (by id).
        expect(result.categories).toEqual(["apple", "Apple", "banana", "Zeta", "Éclair"])
        expect(result.brands).toEqual(["apple", "banana", "Zeta", "Éclair"])
      }))

    it.effect("matches brand and category names ignoring case in every script, as it refuses taken brand names", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const products = yield* Products
          const categories = yield* Categories
          const { family } = yield* schemaFixture
          const emile = yield* brands.create({ name: "Émile" })
          yield* products.create({ familyId: family.id, name: "Chair", brandId: emile.id })
          // The same name with its accent as a combining mark (NFD).
          const decomposed = "E\u0301MILE"
          const clash = yield* failureOf(brands.create({ name: "émile", slug: "emile-again" }))
          yield* categories.create({ name: "Ärger" })
          return {
            clash,
            byName: yield* Effect.forEach(["émile", "ÉMILE", decomposed], (brand) => Effect.map(products.list({ brand, withTotal: true }), (l) => l.total)),
            facets: (yield* products.facets({ brand: "ÉMILE" })).total,
            found: (yield* categories.list({ q: "ÄRG" })).map((c) => c.name),
            brandsFound: yield* Effect.forEach(["MIL", "emile", "e_", "%"], (q) => Effect.map(brands.list({ q }), (l) => l.map((b) => b.name)))
          }
        }))
        expect(result.clash).toContain("brand name émile is taken")
        expect(result.byName).toEqual([1, 1, 1])
        expect(result.facets).toBe(1)
        expect(result.found).toEqual(["Ärger"])
        // By name in any case, or by slug; `%` and `_` are no wildcards.
        expect(result.brandsFound).toEqual([["Émile"], ["Émile"], [], []])
      }))

    it.effect("takes names that differ only by a letter's upper-case spelling for one name: Straße and STRASSE, ΟΔΟΣ'Α and οδος'α", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const products = yield* Products
          const categories = yield* Categories
          const { family } = yield* schemaFixture
          const strasse = yield* brands.create({ name: "Straße" })
          yield* brands.create({ name: "ΟΔΟΣ'Α" })
          yield* products.create({ familyId: family.id, name: "Sign", brandId: strasse.id })
          yield* categories.create({ name: "Große Größen" })
          return {
            clashes: yield* Effect.forEach(["STRASSE", "STRAẞE", "strasse", "οδος'α", "Οδοσ'α"], (name) =>
              failureOf(brands.create({ name, slug: `other-${name.length}-${name.charCodeAt(1)}` }))),
            byName: yield* Effect.forEach(["STRASSE", "strasse", "STRAẞE"], (brand) => Effect.map(products.list({ brand, withTotal: true }), (l) => l.total)),
            brandsFound: (yield* brands.list({ q: "TRASS" })).map((b) => b.name),
            categoriesFound: (yield* categories.list({ q: "GROSSE GRÖSSEN" })).map((c) => c.name)
          }
        }))
        for (const clash of result.clashes) expect(clash).toContain("is taken")
        expect(result.byName).toEqual([1, 1, 1])
        expect(result.brandsFound).toEqual(["Straße"])
        expect(result.categoriesFound).toEqual(["Große Größen"])
      }))
    it.effect("takes a name in a compatibility form or with an invisible format character for the plain name: Ａｃｍｅ is Acme, ﬁne is fine", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const products = yield* Products
          const categories = yield* Categories
          const { family } = yield* schemaFixture
          const acme = yield* brands.create({ name: "Acme" })
          yield* brands.create({ name: "ﬁne Foods" })
          yield* brands.create({ name: "Wasser\u00ADwerk" })
          yield* products.create({ familyId: family.id, name: "Anvil", brandId: acme.id })
          yield* categories.create({ name: "Ｗｉｎｔｅｒ Boots" })
          return {
            clashes: yield* Effect.forEach(["Ａｃｍｅ", "ＡＣＭＥ", "Ac\u00ADme"], (name, i) => failureOf(brands.create({ name, slug: `other-${i}` }))),
            byName: (yield* products.list({ brand: "ＡＣＭＥ", withTotal: true })).total,
            brandsFound: yield* Effect.forEach(["fine foods", "ＦＩＮＥ", "wasserwerk"], (q) => Effect.map(brands.list({ q }), (l) => l.map((b) => b.name))),
            categoriesFound: yield* Effect.forEach(["winter", "ｗｉｎｔｅｒ ｂｏｏｔｓ"], (q) => Effect.map(categories.list({ q }), (l) => l.map((c) => c.name)))
          }
        }))
        for (const clash of result.clashes) expect(clash).toContain("is taken")
        expect(result.byName).toBe(1)
        expect(result.brandsFound).toEqual([["ﬁne Foods"], ["ﬁne Foods"], ["Wasser\u00ADwerk"]])
        expect(result.categoriesFound).toEqual([["Ｗｉｎｔｅｒ Boots"], ["Ｗｉｎｔｅｒ Boots"]])
      }))
    it.effect("drops a zero-width space from a name, as it is not seen: Acme followed by one is Acme", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const categories = yield* Categories
          yield* brands.create({ name: "Acme" })
          yield* brands.create({ name: "Ac me" })
          yield* categories.create({ name: "Winter Boots" })
          return {
            clashes: yield* Effect.forEach(["Acme\u200b", "\u200bACME", "Ac\u200bme", "Ac \u200b me"], (name, i) => failureOf(brands.create({ name, slug: `other-${i}` }))),
            categoriesFound: (yield* categories.list({ q: "wint\u200ber b" })).map((c) => c.name)
          }
        }))
        for (const clash of result.clashes) expect(clash).toContain("is taken")
        expect(result.categoriesFound).toEqual(["Winter Boots"])
      }))
    it.effect("finds categories and brands by a q of any length, past the 50,000 bytes SQLite takes as a LIKE pattern", () =>
      Effect.gen(function*() {
        const long = "ab".repeat(30_000)
        const { result } = yield* inTenant(Effect.gen(function*() {
          const brands = yield* Brands
          const categories = yield* Categories
          yield* brands.create({ name: "Abacus" })
          yield* categories.create({ name: "Abacus" })
          return yield* Effect.forEach([long, "AB", "b_", "%"], (q) =>
            Effect.all([Effect.map(categories.list({ q }), (l) => l.map((c) => c.name)), Effect.map(brands.list({ q }), (l) => l.map((b) => b.name))]))
        }))
        expect(result).toEqual([[[], []], [["Abacus"], ["Abacus"]], [[], []], [[], []]])
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

    it.effect("removes a category's or brand's values of an attribute its family no longer declares, and refuses new ones", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const families = yield* Families
          const outcomes = []
          for (const entityKind of ["category", "brand"] as const) {
            const { attribute: tagline, family, records } = yield* localizableText(entityKind, "tagline")
            const tagged = { tagline: [{ locale: "de", channel: null, value: "Licht" }, { locale: "fr", channel: null, value: "Lumière" }] }
            const made = yield* records.create({ name: "Lamps", attributes: tagged })
            yield* families.detach(family.id, tagline.id)
            const one = yield* records.update(made.id, { attributes: { tagline: [{ locale: "de", channel: null, value: null }] } })
            const refused = yield* failureOf(records.update(made.id, { attributes: { tagline: val("Neu") } }))
            outcomes.push({ one: one.attributes, refused })
          }
          return outcomes
        }))
        for (const { one, refused } of result) {
          expect(one).toEqual({ tagline: [{ locale: "fr", channel: null, value: "Lumière" }] })
          expect(refused).toContain("unknown_attribute")
        }
      }))

    it.effect("takes back a category's or brand's values unchanged since their attribute's validation narrowed, and checks every other entry", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const outcomes = []
          for (const entityKind of ["category", "brand"] as const) {
            const { attribute: motto, records } = yield* localizableText(entityKind, "motto")
            const made = yield* records.create({ name: "Lamps", attributes: { motto: [{ locale: "de", channel: null, value: "Licht" }] } })
            yield* attributes.update(motto.id, { validation: { maxLength: 3 } })
            const sentBack = yield* records.update(made.id, { name: "Lights", attributes: made.attributes })
            const otherLocale = yield* failureOf(records.update(made.id, { attributes: { motto: [{ locale: "fr", channel: null, value: "Licht" }] } }))
            const changed = yield* failureOf(records.update(made.id, { attributes: { motto: [{ locale: "de", channel: null, value: "Lichter" }] } }))
            outcomes.push({ sentBack: [sentBack.name, sentBack.attributes], otherLocale, changed })
          }
          return outcomes
        }))
        for (const { changed, otherLocale, sentBack } of result) {
          expect(sentBack).toEqual(["Lights", { motto: [{ locale: "de", channel: null, value: "Licht" }] }])
          expect(otherLocale).toContain("too_big")
          expect(changed).toContain("too_big")
        }
      }))

    it.effect("refuses to delete the category or brand family while one of them holds a value of its attributes", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const families = yield* Families
          const attributes = yield* Attributes
          const categories = yield* Categories
          const brands = yield* Brands
          const outcomes = []
          for (const entityKind of ["category", "brand"] as const) {
            const family = (yield* families.provisioned(entityKind)).family
            const seo = yield* attributes.create({ code: "seo", label: { en: "SEO" }, type: "text", entityKind })
            yield* families.attach(family.id, { attributeId: seo.id })
            const records = entityKind === "category" ? categories : brands
            const made = yield* records.create({ name: "Held", attributes: { seo: val("kept") } })
            const refused = yield* failureOf(families.delete(family.id))
            const stillThere = (yield* records.get(made.id)).attributes
            yield* records.update(made.id, { attributes: { seo: [{ locale: null, channel: null, value: null }] } })
            yield* families.delete(family.id)
            outcomes.push({ refused, stillThere, gone: yield* failureOf(families.get(family.id)) })
          }
          return outcomes
        }))
        for (const { refused, stillThere, gone } of result) {
          expect(refused).toContain("Conflict")
          expect(stillThere).toEqual({ seo: val("kept") })
          expect(gone).toContain("NotFound")
        }
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
        expect(counts.deletedCounts).toMatchObject({ products: 1, categories: 1, brands: 1, productTags: 1, productCategories: 1 })
      }))
  })
