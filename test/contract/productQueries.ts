import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Clock, Effect, type Layer, TestClock } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { searchText, slugify } from "../../core/catalog/Text.js"
import { Products } from "../../core/products/Products.js"
import type { ValidationFailed } from "../../core/shared/Errors.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { catalogOver } from "../support/Catalog.js"
import { failureOf, inTenant, named, schemaFixture, searched, val } from "../support/CatalogFixtures.js"

/** One character more, fewer or replaced, or two neighbours swapped (counted in code points). */
const oneEdit = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (Math.abs(a.length - b.length) > 1) return false
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a]
  let i = 0
  while (i < shorter.length && shorter[i] === longer[i]) i++
  if (shorter.length < longer.length) return shorter.slice(i).join() === longer.slice(i + 1).join()
  if (shorter.slice(i + 1).join() === longer.slice(i + 1).join()) return true
  return shorter[i] === longer[i + 1] && shorter[i + 1] === longer[i] && shorter.slice(i + 2).join() === longer.slice(i + 2).join()
}

/**
 * The README's search, written plainly: every word is in the text, or (5 to 32 characters) a
 * word of the text starts with a string one edit away from it. The tier: 0 when the name holds
 * every word, 1 when the text does, 2 for near misses; undefined when the product is no match.
 */
const modelTier = (words: ReadonlyArray<string>, name: string, text: string): number | undefined => {
  const textWords = text.trim().split(" ").map((w) => Array.from(w))
  const near = (word: string) => {
    const w = Array.from(word)
    return w.length >= 5 && w.length <= 32 &&
      textWords.some((t) => [w.length - 1, w.length, w.length + 1].some((n) => n <= t.length && oneEdit(w, t.slice(0, n))))
  }
  if (!words.every((w) => text.includes(w) || near(w))) return undefined
  return words.every((w) => name.includes(w)) ? 0 : words.every((w) => text.includes(w)) ? 1 : 2
}

/** Product lists: attribute sort and filter, filtered pages and relevance search, against one storage adapter. */
export const productQueriesSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
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
            relevanceWithoutQ: yield* ids({ sortBy: "relevance", sortDir: "desc" })
          }
        }))
        const { p500, none, p1000, p1500 } = result.expected
        expect(result.asc).toEqual([p500, p1000, p1500, none])
        expect(result.desc).toEqual([p1500, p1000, p500, none])
        expect(result.secondPage).toEqual([p1500, none])
        expect(result.bounded).toEqual([p1000, p1500])
        expect(result.measurement).toContain("unsupported_attribute_type")
        expect(result.unknown).toContain("unknown_attribute")
        expect(result.relevanceWithoutQ).toEqual([p500, none, p1500, p1000])
      }))

    it.effect("refuses a filterAttribute and a sortAttribute that both name no numeric attribute in one answer, list and facets alike", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          yield* schemaFixture
          const products = yield* Products
          const issuesOf = <R>(effect: Effect.Effect<unknown, ValidationFailed, R>) =>
            Effect.map(Effect.flip(effect), (e) => e.issues.map((i) => [i.path, i.code]))
          const query = { filterAttribute: "nosuch", filterMin: 1, sortBy: "attribute", sortAttribute: "size" } as const
          return { list: yield* issuesOf(products.list(query)), facets: yield* issuesOf(products.facets(query)) }
        }))
        const both = [[["filterAttribute"], "unknown_attribute"], [["sortAttribute"], "unsupported_attribute_type"]]
        expect(result).toEqual({ list: both, facets: both })
      }))

    it.effect("pages through ties of every sort key in both directions in id order, one page after another as in one", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const made: Array<{ id: string; name: string; status: string; price: number | null }> = []
          for (let i = 0; i < 8; i++) {
            const price = i % 4 === 3 ? null : (i % 2) * 100
            const name = i % 2 === 0 ? "b" : "a"
            const status = i % 3 === 0 ? "archived" : "draft"
            const p = yield* products.create({
              familyId: family.id,
              name,
              status,
              attributes: price === null ? {} : { price: val({ amount_cents: price, currency: "EUR" }) }
            })
            made.push({ id: p.id, name, status, price })
          }
          const ids = (q: Parameters<typeof products.list>[0]) => Effect.map(products.list({ familyId: family.id, ...q }), (l) => l.data.map((p) => p.id))
          const orders = [
            { sortBy: "name" },
            { sortBy: "status" },
            { sortBy: "attribute", sortAttribute: "price" },
            { sortBy: "relevance" }
          ] as const
          const answers: Array<{ order: string; dir: string; whole: ReadonlyArray<string>; paged: ReadonlyArray<string> }> = []
          for (const order of orders) {
            for (const sortDir of ["asc", "desc"] as const) {
              const whole = yield* ids({ ...order, sortDir, limit: 200 })
              const paged: Array<string> = []
              for (let offset = 0; offset < 8; offset += 3) paged.push(...(yield* ids({ ...order, sortDir, limit: 3, offset })))
              answers.push({ order: order.sortBy, dir: sortDir, whole, paged })
            }
          }
          return { made, answers }
        }))
        const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)
        for (const { order, dir, whole, paged } of result.answers) {
          const sign = dir === "desc" ? -1 : 1
          const expected = [...result.made].sort((x, y) => {
            if (order === "relevance") return cmp(x.id, y.id)
            if (order === "attribute" && (x.price === null) !== (y.price === null)) return x.price === null ? 1 : -1
            const key = order === "name" ? cmp(x.name, y.name) : order === "status" ? cmp(x.status, y.status) : cmp(x.price ?? 0, y.price ?? 0)
            return sign * (key !== 0 ? key : cmp(x.id, y.id))
          }).map((p) => p.id)
          expect({ order, dir, whole }).toEqual({ order, dir, whole: expected })
          expect({ order, dir, paged }).toEqual({ order, dir, paged: expected })
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
          const ids: Array<string> = []
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
            ids.push(...created.map((r) => (r.ok ? r.id : "")))
          }
          // A few products updated after the rest: `updatedSince` then matches only them.
          yield* TestClock.adjust("1 minute")
          const since = new Date(yield* Clock.currentTimeMillis).toISOString()
          for (const i of [2001, 7, 1500]) yield* products.update(ids[i] ?? "", { name: `Renamed ${i}` })
          const slugs = (q: Parameters<typeof products.list>[0]) =>
            Effect.map(products.list({ sortBy: "slug", ...q }), (l) => ({ slugs: l.data.map((p) => p.slug), total: l.total }))
          const dense = { tag: ["common"], categoryId: root.id, includeDescendants: true, filterAttribute: "price", filterMin: 0 }
          return {
            dense: yield* slugs({ ...dense, limit: 5, offset: 10, withTotal: true }),
            denseDesc: yield* slugs({ ...dense, sortDir: "desc", limit: 3 }),
            rare: yield* slugs({ tag: ["common", "rare"], categoryId: shelf.id }),
            narrowRange: yield* slugs({ tag: ["common"], filterAttribute: "price", filterMin: 1000, filterMax: 1010 }),
            none: yield* slugs({ tag: ["common", "missing"], categoryId: root.id, includeDescendants: true, withTotal: true }),
            fewUpdated: yield* slugs({ updatedSince: since, withTotal: true }),
            fewUpdatedByName: yield* slugs({ updatedSince: since, sortBy: "name", sortDir: "desc", limit: 2, offset: 1 }),
            allUpdated: yield* slugs({ updatedSince: "1970-01-01T00:00:00Z", limit: 4, offset: 2000, withTotal: true })
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
        expect(result.fewUpdated).toEqual({ slugs: [7, 1500, 2001].map(slug), total: 3 })
        expect(result.fewUpdatedByName.slugs).toEqual([2001, 1500].map(slug))
        expect(result.allUpdated).toEqual({ slugs: [2000, 2001, 2002, 2003].map(slug), total: count })
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

    it.effect("finds Latin letters of their own by their spelling in a-z, and a Greek word whatever its sigma", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const street = yield* named(family.id, "Straße Łódź")
          const greek = yield* named(family.id, "ΟΔΟΣ'Α ΣΟΦΟΣ")
          const products = yield* Products
          const ids = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          const found: Record<string, ReadonlyArray<string>> = {}
          for (const q of ["strasse", "STRASSE", "straße", "lodz", "Łódź", "οδος", "ΟΔΟΣ", "οδοσ", "σοφος", "σοφοσ"]) found[q] = yield* ids(q)
          return { street, greek, found }
        }))
        const { street, greek } = result
        expect(result.found).toEqual({
          strasse: [street], STRASSE: [street], "straße": [street], lodz: [street], "Łódź": [street],
          "οδος": [greek], "ΟΔΟΣ": [greek], "οδοσ": [greek], "σοφος": [greek], "σοφοσ": [greek]
        })
      }))

    it.effect("reads markup as markup in rich text only, and the character references of rich text as their characters", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const attributes = yield* Attributes
          const families = yield* Families
          const body = yield* attributes.create({ code: "body", label: { en: "Body" }, type: "richtext", isLocalizable: true })
          yield* families.attach(family.id, { attributeId: body.id })
          const products = yield* Products
          const plain = yield* products.create({ familyId: family.id, name: "Fan", attributes: { blurb: val("volume <10 dB, weight >2 kg") } })
          const rich = yield* products.create({
            familyId: family.id,
            name: "Mill",
            attributes: { body: [{ locale: "fr", channel: null, value: "<p>Sel &amp; poivre, caf&#233; &#x2014; <b>fum&eacute;</b> &constructor;</p>" }] }
          })
          const ids = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          return {
            plain: plain.id,
            rich: rich.id,
            weight: yield* ids("weight"),
            db: yield* ids("db"),
            cafe: yield* ids("cafe"),
            amp: yield* ids("amp"),
            poivre: yield* ids("poivre"),
            fume: yield* ids("fume"),
            markup: yield* ids("constructor")
          }
        }))
        expect(result.weight).toEqual([result.plain])
        expect(result.db).toEqual([result.plain])
        expect(result.cafe).toEqual([result.rich])
        expect(result.amp).toEqual([])
        expect(result.poivre).toEqual([result.rich])
        expect(result.fume).toEqual([result.rich])
        // An unknown reference stays as written.
        expect(result.markup).toEqual([result.rich])
      }))

    it.effect("reads an inline tag of rich text as no break in a word, and any other tag as one", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const attributes = yield* Attributes
          const families = yield* Families
          const body = yield* attributes.create({ code: "body", label: { en: "Body" }, type: "richtext" })
          yield* families.attach(family.id, { attributeId: body.id })
          const products = yield* Products
          const rich = yield* products.create({
            familyId: family.id,
            name: "Horn",
            attributes: { body: val("<p>Super<STRONG class=\"x\">sonic</STRONG> wat<wbr>erproof</p><p>Steel</p><ul><li>one</li><li>two</li></ul>a<br>b") }
          })
          const ids = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          return {
            rich: rich.id,
            inline: yield* ids("supersonic"),
            wordBreak: yield* ids("waterproof"),
            acrossParagraphs: yield* ids("waterproofsteel"),
            acrossItems: yield* ids("onetwo"),
            acrossLines: yield* ids("ab")
          }
        }))
        expect(result.inline).toEqual([result.rich])
        expect(result.wordBreak).toEqual([result.rich])
        expect(result.acrossParagraphs).toEqual([])
        expect(result.acrossItems).toEqual([])
        expect(result.acrossLines).toEqual([])
      }))

    it.effect("reads a soft hyphen or another invisible format character as no break in a word", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const attributes = yield* Attributes
          const families = yield* Families
          const body = yield* attributes.create({ code: "body", label: { en: "Body" }, type: "richtext" })
          yield* families.attach(family.id, { attributeId: body.id })
          const products = yield* Products
          const kettle = yield* products.create({ familyId: family.id, name: "Wasser\u00ADkocher" })
          const steel = yield* products.create({ familyId: family.id, name: "Topf", attributes: { body: val("<p>Edel&shy;stahl</p>") } })
          const joined = yield* products.create({ familyId: family.id, name: "Plain", attributes: { blurb: val("co\u200Dop\u2060erative zero\u200Bwidth") } })
          const searched = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          return {
            ids: { kettle: kettle.id, steel: steel.id, joined: joined.id },
            kettle: yield* searched("wasserkocher"),
            steel: yield* searched("edelstahl"),
            joined: yield* searched("cooperative"),
            spaced: yield* searched("zerowidth"),
            parted: yield* searched("zero width")
          }
        }))
        expect(result.kettle).toEqual([result.ids.kettle])
        expect(result.steel).toEqual([result.ids.steel])
        expect(result.joined).toEqual([result.ids.joined])
        // The zero-width space parts words.
        expect(result.spaced).toEqual([])
        expect(result.parted).toEqual([result.ids.joined])
      }))

    it.effect("finds a name or value in a compatibility form by its plain spelling, and a plain one by a query in a compatibility form", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const wide = yield* products.create({ familyId: family.id, name: "Ｋｅｔｔｌｅ ２０００" })
          const flour = yield* products.create({ familyId: family.id, name: "Sack", attributes: { blurb: val("ﬁne ﬂour, 10 m²") } })
          const plain = yield* products.create({ familyId: family.id, name: "Teapot" })
          const searched = (q: string) => Effect.map(products.list({ q }), (l) => l.data.map((p) => p.id))
          return {
            ids: { wide: wide.id, flour: flour.id, plain: plain.id },
            wide: yield* searched("kettle 2000"),
            flour: yield* searched("fine flour m2"),
            plain: yield* searched("ＴＥＡＰＯＴ"),
            ligature: yield* searched("ﬂour"),
            slug: wide.slug
          }
        }))
        expect(result.wide).toEqual([result.ids.wide])
        expect(result.flour).toEqual([result.ids.flour])
        expect(result.plain).toEqual([result.ids.plain])
        expect(result.ligature).toEqual([result.ids.flour])
        expect(result.slug).toBe("kettle-2000")
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

    it.effect("ranks products whose name holds every word first, then those whose other text does, then near misses", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const mk = (name: string, blurb?: string) =>
            Effect.map(products.create({ familyId: family.id, name, attributes: blurb === undefined ? {} : { blurb: val(blurb) } }), (p) => p.id)
          const garden = yield* mk("Garden light", "A lantern for the garden")
          const classic = yield* mk("Lantern classic")
          const swapped = yield* mk("Lantren stand")
          const porch = yield* mk("Porch light", "Hanging lantern")
          const storm = yield* mk("Storm lantern")
          const sized = yield* mk("Camping lantern", "size XL")
          const sizedName = yield* mk("Camping lantern XL")
          const page = (q: string, limit: number, offset: number) => searched(q, { limit, offset })
          const before = {
            all: yield* page("lantern", 10, 0),
            pages: [yield* page("lantern", 3, 0), yield* page("lantern", 3, 3), yield* page("lantern", 3, 6)],
            across: yield* page("lantern", 3, 4),
            withShort: yield* page("lantern xl", 10, 0),
            shortOnly: yield* page("xl", 10, 0)
          }
          yield* products.update(garden, { name: "Lantern garden light" })
          return {
            expected: { garden, classic, swapped, porch, storm, sized, sizedName },
            before,
            renamed: yield* page("lantern", 10, 0)
          }
        }))
        const { garden, classic, swapped, porch, storm, sized, sizedName } = result.expected
        expect(result.before.all).toEqual({ ids: [classic, storm, sized, sizedName, garden, porch, swapped], total: 7 })
        expect(result.before.pages.flatMap((p) => p.ids)).toEqual(result.before.all.ids)
        expect(result.before.across).toEqual({ ids: [garden, porch, swapped], total: 7 })
        expect(result.before.withShort).toEqual({ ids: [sizedName, sized], total: 2 })
        expect(result.before.shortOnly).toEqual({ ids: [sizedName, sized], total: 2 })
        expect(result.renamed.ids).toEqual([garden, classic, storm, sized, sizedName, porch, swapped])
      }))

    it.effect("counts a word's characters as code points, a letter beyond the Basic Multilingual Plane as one", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const mk = (name: string) => named(family.id, name)
          const pair = yield* mk("Vase 𠀀𠀁")
          const five = yield* mk("Bowl 𠀀𠀁𠀂𠀃𠀄")
          return {
            pair,
            five,
            short: yield* searched("𠀀𠀁"),
            shortInName: yield* searched("vase 𠀀𠀁"),
            three: yield* searched("𠀂𠀃𠀄"),
            replaced: yield* searched("𠀀𠀁𠀂𠀃𠀅"),
            dropped: yield* searched("𠀀𠀁𠀃𠀄𠀅"),
            four: yield* searched("𠀀𠀁𠀃𠀄")
          }
        }))
        const { pair, five } = result
        expect(result.short).toEqual({ ids: [pair, five], total: 2 })
        expect(result.shortInName).toEqual({ ids: [pair], total: 1 })
        expect(result.three).toEqual({ ids: [five], total: 1 })
        expect(result.replaced).toEqual({ ids: [five], total: 1 })
        expect(result.dropped).toEqual({ ids: [], total: 0 })
        // Four characters: no near misses.
        expect(result.four).toEqual({ ids: [], total: 0 })
      }))

    it.effect("compares Hangul by its syllables, not by the letters a syllable is composed of", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const mk = (name: string) => named(family.id, name)
          const gak = yield* mk("각")
          const korea = yield* mk("한국 지도")
          return {
            gak,
            korea,
            syllable: yield* searched("각"),
            part: yield* searched("가"),
            word: yield* searched("한국"),
            secondSyllable: yield* searched("국"),
            // Two characters: no near misses.
            replaced: yield* searched("한극")
          }
        }))
        const { gak, korea } = result
        expect(result.syllable).toEqual({ ids: [gak], total: 1 })
        expect(result.part).toEqual({ ids: [], total: 0 })
        expect(result.word).toEqual({ ids: [korea], total: 1 })
        expect(result.secondSyllable).toEqual({ ids: [korea], total: 1 })
        expect(result.replaced).toEqual({ ids: [], total: 0 })
      }))

    it.effect("answers every query as a model of the documented search does: matches, tiers, pages and totals, after renames", () =>
      Effect.gen(function*() {
        const vocab = ["Kettle", "kettel", "ketle", "XL", "ab", "tee", "Straße", "lodz", "ΟΔΟΣ", "café", "wireless", "wirelss", "각", "한국어", "𠀀𠀁"]
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const word = (i: number) => vocab[i % vocab.length] ?? ""
          const made: Array<{ id: string; name: string; other: string }> = []
          for (let i = 0; i < 30; i++) {
            const name = [word(i), ...(i % 3 === 0 ? [word(i * 7 + 2)] : [])].join(" ")
            const blurb = i % 2 === 0 ? `${word(i * 5 + 1)} ${word(i + 4)}` : undefined
            const p = yield* products.create({
              familyId: family.id,
              name,
              ...(i % 4 === 1 ? { slug: `s${i}-${slugify(word(i * 3))}` } : {}),
              attributes: blurb === undefined ? {} : { blurb: val(blurb) }
            })
            made.push({ id: p.id, name, other: `${p.slug} ${blurb ?? ""}` })
          }
          // Renames move products between tiers, through an update and through a bulk update.
          for (const [i, name] of [[2, "tee Kettle"], [5, "plain"], [9, "wirelss XL"]] as const) {
            const p = made[i]
            if (p === undefined) continue
            if (i === 5) yield* products.bulk([{ op: "update", id: p.id, name }])
            else yield* products.update(p.id, { name })
            made[i] = { ...p, name }
          }
          const answers: Array<{ q: string; expected: ReadonlyArray<string>; all: ReadonlyArray<string>; paged: ReadonlyArray<string>; totals: ReadonlyArray<number | undefined>; more: ReadonlyArray<boolean> }> = []
          const queries = [...vocab, ...vocab.map((w, i) => `${w} ${vocab[(i + 1) % vocab.length]}`)]
          for (const q of queries) {
            const words = searchText([q]).trim().split(" ")
            const expected = made
              .map((p, position) => ({ p, position, tier: modelTier(words, searchText([p.name]), searchText([p.name, p.other])) }))
              .flatMap((x) => (x.tier === undefined ? [] : [{ ...x, tier: x.tier }]))
              .sort((a, b) => a.tier - b.tier || a.position - b.position)
              .map((x) => x.p.id)
            const all = yield* searched(q, { limit: 200 })
            const paged: Array<string> = []
            const totals: Array<number | undefined> = [all.total]
            const more: Array<boolean> = []
            for (let offset = 0; offset <= expected.length; offset += 2) {
              const page = yield* products.list({ q, limit: 2, offset, withTotal: true })
              paged.push(...page.data.map((p) => p.id))
              totals.push(page.total)
              more.push(page.hasMore !== offset + 2 < expected.length)
            }
            answers.push({ q, expected, all: all.ids, paged, totals, more })
          }
          return answers
        }))
        for (const { all, expected, more, paged, q, totals } of result) {
          expect({ q, all }).toEqual({ q, all: expected })
          expect({ q, paged }).toEqual({ q, paged: expected })
          expect({ q, totals: new Set(totals), wrongHasMore: more.some((m) => m) }).toEqual({ q, totals: new Set([expected.length]), wrongHasMore: false })
        }
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
    it.effect("sorts and searches by the values the family declares, kept in step with attaching and detaching", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { blurb, family, price } = yield* schemaFixture
          const products = yield* Products
          const families = yield* Families
          const p = yield* products.create({
            familyId: family.id,
            name: "Plain",
            attributes: { blurb: val("ocelot"), price: val({ amount_cents: 500, currency: "EUR" }) }
          })
          const seen = Effect.gen(function*() {
            const found = yield* searched("ocelot")
            const priced = yield* products.list({ filterAttribute: "price", withTotal: true })
            return [found.total, priced.total]
          })
          const attached = yield* seen
          yield* families.detach(family.id, blurb.id)
          yield* families.detach(family.id, price.id)
          const detached = yield* seen
          yield* products.update(p.id, { name: "Plain renamed" })
          const afterWrite = yield* seen
          yield* families.attach(family.id, { attributeId: blurb.id })
          yield* families.attach(family.id, { attributeId: price.id })
          return { attached, detached, afterWrite, reattached: yield* seen }
        }))
        expect(result).toEqual({ attached: [1, 1], detached: [0, 0], afterWrite: [0, 0], reattached: [1, 1] })
      }))
  })
