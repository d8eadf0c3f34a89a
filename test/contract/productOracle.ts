import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer, Runtime, TestClock } from "effect"
import fc from "fast-check"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { Products } from "../../core/products/Products.js"
import type { FacetsQuery, ListProductsQuery } from "../../core/products/ProductQuery.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { catalogOver } from "../support/Catalog.js"
import { inTenant } from "../support/CatalogFixtures.js"

/**
 * The product list and facets checked against a model written from the documents: small random
 * catalogs (a category tree, brands, two families, money, number and decimal values at the
 * default scope and beside it, tags written in many spellings, statuses, ties everywhere) are
 * made through the use cases, then random filters, orders and pages are asked of both.
 */

// ---------------------------------------------------------------- generated catalogs

type Scoped = { readonly locale: string | null; readonly channel: string | null; readonly value: unknown }

interface ProductSpec {
  readonly family: number
  readonly name: string
  readonly status: "draft" | "active" | "archived"
  readonly brand: number | null
  readonly categories: ReadonlyArray<number>
  readonly tags: ReadonlyArray<string>
  readonly values: Readonly<Record<string, ReadonlyArray<Scoped>>>
  readonly step: number
}

interface CatalogSpec {
  readonly parents: ReadonlyArray<number | null>
  readonly categoryNames: ReadonlyArray<string>
  readonly brandNames: ReadonlyArray<string>
  readonly products: ReadonlyArray<ProductSpec>
  readonly updates: ReadonlyArray<{ readonly product: number; readonly status: "draft" | "active" | "archived"; readonly step: number }>
}

/** Sortable codes, all declared by family 0; family 1 declares only `price` and `weight`. */
const SORTABLE = ["price", "weight", "dec", "lprice", "lnum"] as const
const FAMILY_1_CODES = new Set(["price", "weight", "blurb"])
const STATUSES = ["draft", "active", "archived"] as const
const RAW_TAGS = ["Red", "red ", "RÉD", "Blue Green", "blue--green", "Sale!", "  --  ", "Ünïcode", "x".repeat(62) + "-y", "x".repeat(60) + "z"]
const NAMES = ["a", "a", "B", "b", "Äpfel", "zebra", "Zebra"]

const at = (value: unknown, locale: string | null = null, channel: string | null = null): Scoped => ({ locale, channel, value })
const cents = fc.constantFrom(-5, 0, 100, 100, 250, 1000)
const num = fc.constantFrom(-2, 0, 1.5, 1.5, 10, 250)
const money = cents.chain((c) => fc.constantFrom("EUR", "USD").map((currency) => ({ amount_cents: c, currency })))
/** Absent three times in four. */
const maybe = <A>(a: fc.Arbitrary<A>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 })
/** Present three times in four. */
const often = <A>(a: fc.Arbitrary<A>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: a, weight: 3 })

const valuesArb: fc.Arbitrary<Record<string, ReadonlyArray<Scoped>>> = fc.record({
  price: often(money.map((m) => [at(m)])),
  weight: often(num.map((n) => [at(n)])),
  dec: often(fc.constantFrom<unknown>("1.50", "1.5", "10", 2, "-0.5", "250").map((d) => [at(d)])),
  // Localizable and scopable: only the null/null entry is the default scope.
  lprice: often(fc.tuple(fc.option(money, { nil: null }), money).map(([d, other]) =>
    d === null ? [at(other, "de", "web")] : [at(other, "de", null), at(d), at(other, null, "web")]
  )),
  lnum: often(fc.tuple(fc.option(num, { nil: null }), num).map(([d, other]) => d === null ? [at(other, "fr")] : [at(other, "fr"), at(d)])),
  color: often(fc.constantFrom("red", "blue").map((c) => [at(c)])),
  flag: often(fc.boolean().map((b) => [at(b)])),
  blurb: often(fc.constantFrom("hello", "world").map((t) => [at(t)]))
}).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as Record<string, ReadonlyArray<Scoped>>)

const catalogArb: fc.Arbitrary<CatalogSpec> = fc.record({
  categoryCount: fc.integer({ min: 1, max: 5 }),
  brandCount: fc.integer({ min: 0, max: 3 }),
  productCount: fc.integer({ min: 0, max: 16 })
}).chain(({ brandCount, categoryCount, productCount }) =>
  fc.record({
    parents: fc.tuple(...Array.from({ length: categoryCount }, (_, i) => fc.option(fc.integer({ min: 0, max: Math.max(0, i - 1) }), { nil: null }).map((p) => (i === 0 ? null : p)))),
    categoryNames: fc.shuffledSubarray(["apple", "Banana", "cherry", "Äpfel", "zed", "Dill"], { minLength: categoryCount, maxLength: categoryCount }),
    brandNames: fc.shuffledSubarray(["Acme", "beta", "Çedille", "Zulu"], { minLength: brandCount, maxLength: brandCount }),
    products: fc.array(
      fc.record({
        family: fc.integer({ min: 0, max: 1 }),
        name: fc.constantFrom(...NAMES),
        status: fc.constantFrom(...STATUSES),
        brand: brandCount === 0 ? fc.constant(null) : fc.option(fc.integer({ min: 0, max: brandCount - 1 }), { nil: null }),
        categories: fc.uniqueArray(fc.integer({ min: 0, max: categoryCount - 1 }), { maxLength: 2 }),
        tags: fc.array(fc.constantFrom(...RAW_TAGS), { maxLength: 3 }),
        values: valuesArb,
        step: fc.constantFrom(0, 0, 1, 5)
      }),
      { minLength: productCount, maxLength: productCount }
    ),
    updates: productCount === 0
      ? fc.constant([])
      : fc.array(fc.record({ product: fc.integer({ min: 0, max: productCount - 1 }), status: fc.constantFrom(...STATUSES), step: fc.constantFrom(0, 1, 7) }), { maxLength: 3 })
  })
).map((c) => ({
  ...c,
  products: c.products.map((p) => p.family === 1 ? { ...p, values: Object.fromEntries(Object.entries(p.values).filter(([k]) => FAMILY_1_CODES.has(k))) } : p)
}))

/** A query over a catalog, by index into its categories, brands and products. */
interface QuerySpec {
  readonly status?: "draft" | "active" | "archived"
  readonly family?: number
  readonly category?: number
  readonly includeDescendants?: boolean
  readonly brandId?: number
  readonly brandName?: { readonly index: number; readonly spelling: "slug" | "upper" | "lower" }
  readonly tags?: ReadonlyArray<string>
  readonly ids?: ReadonlyArray<number>
  readonly slugOf?: number
  readonly updatedSinceOf?: number
  readonly filterAttribute?: string
  readonly filterMin?: number
  readonly filterMax?: number
  readonly sortBy?: "name" | "slug" | "status" | "updatedAt" | "createdAt" | "relevance" | "attribute"
  readonly sortAttribute?: string
  readonly sortDir?: "asc" | "desc"
  readonly limit?: number
  readonly offset?: number
  readonly withTotal?: boolean
  readonly facetLimit?: number
  readonly includeEmpty?: boolean
}

const FILTERS = ["status", "family", "category", "brandId", "brandName", "tags", "ids", "slugOf", "updatedSinceOf", "filterAttribute"] as const

/** Up to three filters, each from the whole range, and mostly a sort with a short first or second page. */
const queryArb: fc.Arbitrary<QuerySpec> = fc.record({
  chosen: fc.subarray([...FILTERS], { maxLength: 3 }),
  status: fc.constantFrom(...STATUSES),
  family: fc.integer({ min: 0, max: 1 }),
  category: fc.integer({ min: 0, max: 5 }),
  includeDescendants: fc.option(fc.boolean(), { nil: undefined }),
  brandId: fc.integer({ min: 0, max: 3 }),
  brandName: fc.record({ index: fc.integer({ min: 0, max: 3 }), spelling: fc.constantFrom("slug" as const, "upper" as const, "lower" as const) }),
  tags: fc.array(fc.constantFrom(...RAW_TAGS, "RED", "blue_green", "x".repeat(61), "nothing"), { minLength: 1, maxLength: 2 }),
  ids: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 6 }),
  slugOf: fc.integer({ min: 0, max: 15 }),
  updatedSinceOf: fc.integer({ min: 0, max: 15 }),
  filterAttribute: fc.constantFrom(...SORTABLE),
  filterMin: maybe(fc.constantFrom(-5, 0, 1, 1.5, 100, 250.5)),
  filterMax: maybe(fc.constantFrom(-2, 0, 1.5, 10, 100, 1000)),
  sortBy: often(fc.constantFrom("name" as const, "slug" as const, "status" as const, "updatedAt" as const, "createdAt" as const, "relevance" as const, "attribute" as const, "attribute" as const)),
  sortAttribute: fc.constantFrom(...SORTABLE),
  impliedSort: fc.boolean(),
  sortDir: often(fc.constantFrom("asc" as const, "desc" as const)),
  limit: often(fc.integer({ min: 1, max: 6 })),
  offset: maybe(fc.integer({ min: 0, max: 4 })),
  withTotal: fc.option(fc.boolean(), { nil: undefined }),
  facetLimit: maybe(fc.integer({ min: 1, max: 3 })),
  includeEmpty: fc.option(fc.boolean(), { nil: undefined })
}).map(({ chosen, filterMax, filterMin, impliedSort, sortAttribute, ...q }) => {
  const picked: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(q)) {
    if (!(FILTERS as ReadonlyArray<string>).includes(k) || chosen.includes(k as typeof FILTERS[number])) picked[k] = v
  }
  // The bounds need filterAttribute; sortAttribute is kept only for sortBy=attribute.
  if (chosen.includes("filterAttribute")) Object.assign(picked, { filterMin, filterMax })
  if (q.sortBy === "attribute") picked.sortAttribute = sortAttribute
  // sortAttribute alone implies sortBy=attribute.
  if (q.sortBy === "attribute" && impliedSort) delete picked.sortBy
  return Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined)) as QuerySpec
})

// ---------------------------------------------------------------- the model

interface Row {
  readonly index: number
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly status: string
  readonly familyId: string
  readonly brandId: string | null
  readonly categoryIds: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
  readonly createdAt: number
  readonly updatedAt: number
  readonly values: Readonly<Record<string, ReadonlyArray<Scoped>>>
}

interface Made {
  readonly rows: ReadonlyArray<Row>
  readonly families: ReadonlyArray<{ readonly id: string; readonly code: string; readonly label: string }>
  readonly categories: ReadonlyArray<{ readonly id: string; readonly slug: string; readonly name: string; readonly parentId: string | null }>
  readonly brands: ReadonlyArray<{ readonly id: string; readonly slug: string; readonly name: string }>
}

/** Code point order, which is not JavaScript's UTF-16 order beyond the BMP. */
const byCodePoint = (a: string, b: string): number => {
  const x = Array.from(a, (c) => c.codePointAt(0)!)
  const y = Array.from(b, (c) => c.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}

/** The seven canonicalization steps of the specification's Limits section. */
const canonical = (tag: string): string =>
  Array.from(
    tag.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC")
      .replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "")
  ).slice(0, 60).join("")
const canonicalAll = (tags: ReadonlyArray<string>) => [...new Set(tags.map(canonical).filter((t) => t.length > 0))]

/** The value at the default scope (no locale, no channel); money by amount_cents. */
const sortValue = (row: Row, code: string): number | undefined => {
  const entry = row.values[code]?.find((e) => e.locale === null && e.channel === null)
  if (entry === undefined) return undefined
  const v = entry.value
  if (typeof v === "number") return v
  if (typeof v === "string") return Number(v)
  if (typeof v === "object" && v !== null && "amount_cents" in v) return (v as { amount_cents: number }).amount_cents
  return undefined
}

const subtreeOf = (made: Made, id: string): Set<string> => {
  const out = new Set([id])
  let grew = true
  while (grew) {
    grew = false
    for (const c of made.categories) {
      if (c.parentId !== null && out.has(c.parentId) && !out.has(c.id)) {
        out.add(c.id)
        grew = true
      }
    }
  }
  return out
}

type Filter = "status" | "family" | "category" | "brand" | "tag" | "rest"

const nameKey = (s: string) => s.normalize("NFC").trim().replace(/\s+/g, " ").toLowerCase()

/** Does the row pass every filter of `q` except those in `skip`? */
const passes = (made: Made, q: QuerySpec, row: Row, skip: Filter | null = null): boolean => {
  if (skip !== "status" && q.status !== undefined && row.status !== q.status) return false
  if (skip !== "family" && q.family !== undefined && row.familyId !== made.families[q.family]!.id) return false
  if (skip !== "category" && q.category !== undefined) {
    const cat = made.categories[q.category]
    // A category that does not exist matches nothing.
    if (cat === undefined) return false
    const set = q.includeDescendants === true ? subtreeOf(made, cat.id) : new Set([cat.id])
    if (!row.categoryIds.some((c) => set.has(c))) return false
  }
  if (skip !== "brand") {
    if (q.brandId !== undefined && (made.brands[q.brandId] === undefined || row.brandId !== made.brands[q.brandId]!.id)) return false
    if (q.brandName !== undefined) {
      const b = made.brands[q.brandName.index]
      const matches = made.brands.filter((x) =>
        b !== undefined && (x.slug === brandSpelling(b, q.brandName!.spelling) || nameKey(x.name) === nameKey(brandSpelling(b, q.brandName!.spelling)))
      )
      if (!matches.some((x) => x.id === row.brandId)) return false
    }
  }
  if (skip !== "tag" && q.tags !== undefined) {
    // Values that canonicalize to nothing are ignored.
    if (!canonicalAll(q.tags).every((t) => row.tags.includes(t))) return false
  }
  if (q.ids !== undefined && !q.ids.some((i) => made.rows[i]?.id === row.id)) return false
  if (q.slugOf !== undefined && made.rows[q.slugOf]?.slug !== row.slug) return false
  if (q.updatedSinceOf !== undefined) {
    const since = made.rows[q.updatedSinceOf]
    if (since !== undefined && row.updatedAt < since.updatedAt) return false
  }
  if (q.filterAttribute !== undefined) {
    const v = sortValue(row, q.filterAttribute)
    if (v === undefined) return false
    if (q.filterMin !== undefined && v < q.filterMin) return false
    if (q.filterMax !== undefined && v > q.filterMax) return false
  }
  return true
}

const brandSpelling = (b: { readonly slug: string; readonly name: string }, spelling: "slug" | "upper" | "lower") =>
  spelling === "slug" ? b.slug : spelling === "upper" ? b.name.toUpperCase() : ` ${b.name.toLowerCase()} `

/** The list's order: createdAt by default, ties by id in the same direction; relevance without q is creation order. */
const ordered = (q: QuerySpec, rows: ReadonlyArray<Row>): ReadonlyArray<Row> => {
  const dir = q.sortDir === "desc" ? -1 : 1
  const byId = (a: Row, b: Row) => dir * byCodePoint(a.id, b.id)
  const sortBy = q.sortBy ?? (q.sortAttribute !== undefined ? "attribute" : "createdAt")
  const compare = (a: Row, b: Row): number => {
    switch (sortBy) {
      case "relevance":
        return a.index - b.index
      case "name":
      case "slug":
      case "status":
        return dir * byCodePoint(a[sortBy], b[sortBy]) || byId(a, b)
      case "createdAt":
      case "updatedAt":
        return dir * (a[sortBy] - b[sortBy]) || byId(a, b)
      case "attribute": {
        const x = sortValue(a, q.sortAttribute!)
        const y = sortValue(b, q.sortAttribute!)
        if (x === undefined && y === undefined) return byId(a, b)
        if (x === undefined) return 1
        if (y === undefined) return -1
        return dir * (x - y) || byId(a, b)
      }
    }
  }
  return [...rows].sort(compare)
}

/** Counted items by count, then by the dimension's tie order; with includeEmpty the zeros follow; then the cap. */
const dimension = <K>(
  all: ReadonlyArray<K>,
  count: (k: K) => number,
  tie: (a: K, b: K) => number,
  cap: number,
  includeEmpty: boolean
) => {
  const counted = all.map((k) => ({ k, n: count(k) }))
  const nonZero = counted.filter((c) => c.n > 0).sort((a, b) => b.n - a.n || tie(a.k, b.k))
  const zeros = includeEmpty ? counted.filter((c) => c.n === 0).sort((a, b) => tie(a.k, b.k)) : []
  return [...nonZero, ...zeros].slice(0, cap)
}

const modelFacets = (made: Made, q: QuerySpec) => {
  const caps = q.facetLimit === undefined
    ? { families: 50, statuses: 3, categories: 30, brands: 30, tags: 30 }
    : { families: q.facetLimit, statuses: q.facetLimit, categories: q.facetLimit, brands: q.facetLimit, tags: q.facetLimit }
  const empty = q.includeEmpty === true
  const without = (skip: Filter) => made.rows.filter((r) => passes(made, q, r, skip))
  const byFamily = without("family")
  const byStatus = without("status")
  const byBrand = without("brand")
  const byCategory = without("category")
  const byTag = without("tag")
  const allTags = [...new Set(made.rows.flatMap((r) => r.tags))]
  return {
    total: made.rows.filter((r) => passes(made, q, r)).length,
    families: dimension(made.families, (f) => byFamily.filter((r) => r.familyId === f.id).length, (a, b) => byCodePoint(a.code, b.code), caps.families, empty)
      .map(({ k, n }) => ({ id: k.id, code: k.code, count: n })),
    statuses: dimension([...STATUSES], (s) => byStatus.filter((r) => r.status === s).length, byCodePoint, caps.statuses, empty)
      .map(({ k, n }) => ({ value: k, count: n })),
    brands: dimension(made.brands, (b) => byBrand.filter((r) => r.brandId === b.id).length, (a, b) => byCodePoint(a.name, b.name), caps.brands, empty)
      .map(({ k, n }) => ({ id: k.id, name: k.name, count: n })),
    categories: dimension(made.categories, (c) => {
      const set = q.includeDescendants === true ? subtreeOf(made, c.id) : new Set([c.id])
      return byCategory.filter((r) => r.categoryIds.some((x) => set.has(x))).length
    }, (a, b) => byCodePoint(a.name, b.name), caps.categories, empty).map(({ k, n }) => ({ id: k.id, count: n })),
    // Tags are not among the dimensions includeEmpty fills.
    tags: dimension(allTags, (t) => byTag.filter((r) => r.tags.includes(t)).length, byCodePoint, caps.tags, false)
      .map(({ k, n }) => ({ value: k, count: n }))
  }
}

// ---------------------------------------------------------------- the suite

/** A fixed seed keeps CI reproducible; CATALOG_ORACLE_SEED and CATALOG_ORACLE_RUNS explore further. */
const SEED = Number(process.env.CATALOG_ORACLE_SEED ?? 20261126)
const RUNS = process.env.CATALOG_ORACLE_RUNS === undefined ? undefined : Number(process.env.CATALOG_ORACLE_RUNS)

/** Lists and facets of `cases` random catalogs against the model, on one storage adapter. */
export const productOracleSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>, cases: number) =>
  layer(catalogOver(storage), { timeout: 300_000 })(name, (it) => {
    it.effect("answers lists and facets as the model of the documents does, for random catalogs and queries", () =>
      Effect.gen(function*() {
        const run = Runtime.runPromise(yield* Effect.runtime<Effect.Effect.Context<ReturnType<typeof caseOf>>>())
        const property = fc.asyncProperty(catalogArb, fc.array(queryArb, { minLength: 10, maxLength: 16 }), async (catalog, queries) => {
          const { result } = await run(caseOf(catalog, queries))
          const { answers, made } = result
          const name = (id: string) => `#${made.rows.find((r) => r.id === id)?.index}`
          for (const { facets, list, q } of answers) {
            const matching = ordered(q, made.rows.filter((r) => passes(made, q, r)))
            const limit = q.limit ?? 50
            const offset = q.offset ?? 0
            const page = matching.slice(offset, offset + limit)
            expect({ q, ids: list.data.map((p) => name(p.id)) }).toEqual({ q, ids: page.map((r) => name(r.id)) })
            expect({ q, hasMore: list.hasMore, total: list.total }).toEqual({
              q,
              hasMore: matching.length > offset + limit,
              total: q.withTotal === true ? matching.length : undefined
            })
            const model = modelFacets(made, q)
            expect({
              q,
              total: facets.total,
              families: facets.families.map((f) => ({ id: f.id, code: f.code, count: f.count })),
              statuses: facets.statuses,
              brands: facets.brands,
              categories: facets.categories.map((c) => ({ id: c.id, count: c.count })),
              tags: facets.tags,
              connectors: facets.connectors
            }).toEqual({ q, ...model, connectors: [] })
          }
        })
        yield* Effect.promise(() => fc.assert(property, { numRuns: RUNS ?? cases, seed: SEED, interruptAfterTimeLimit: 150_000, markInterruptAsFailure: true }))
      }), 240_000)
  })

/** Makes the catalog in a new organization and asks it every query, list and facets. */
const caseOf = (catalog: CatalogSpec, queries: ReadonlyArray<QuerySpec>) =>
  inTenant(Effect.gen(function*() {
    const made = yield* makeCatalog(catalog)
    const products = yield* Products
    const answers = []
    for (const q of queries) {
      const listQuery = toQuery(made, q)
      const list = yield* products.list(listQuery)
      const facets = yield* products.facets({
        ...listQuery,
        ...(q.facetLimit !== undefined ? { facetLimit: q.facetLimit } : {}),
        ...(q.includeEmpty !== undefined ? { includeEmpty: q.includeEmpty } : {})
      })
      answers.push({ q, list, facets })
    }
    return { made, answers }
  }))

const makeCatalog = (catalog: CatalogSpec) =>
  Effect.gen(function*() {
    const attributes = yield* Attributes
    const families = yield* Families
    const categories = yield* Categories
    const brands = yield* Brands
    const products = yield* Products
    const defs = [
      { code: "price", type: "money" as const },
      { code: "weight", type: "number" as const },
      { code: "dec", type: "decimal" as const },
      { code: "lprice", type: "money" as const, isLocalizable: true, isScopable: true },
      { code: "lnum", type: "number" as const, isLocalizable: true },
      { code: "color", type: "select" as const, validation: { options: ["red", "blue"] } },
      { code: "flag", type: "boolean" as const },
      { code: "blurb", type: "text" as const }
    ]
    const attrs = []
    for (const d of defs) attrs.push(yield* attributes.create({ ...d, label: { en: d.code } }))
    const fams = [yield* families.create({ code: "zeta", label: { en: "Zeta" } }), yield* families.create({ code: "alpha", label: { en: "Alpha" } })]
    for (const a of attrs) {
      yield* families.attach(fams[0]!.id, { attributeId: a.id })
      if (FAMILY_1_CODES.has(a.code)) yield* families.attach(fams[1]!.id, { attributeId: a.id })
    }
    const cats: Array<{ id: string; slug: string; name: string; parentId: string | null }> = []
    for (let i = 0; i < catalog.parents.length; i++) {
      const parent = catalog.parents[i]
      const parentId = parent === null || parent === undefined ? null : cats[parent]!.id
      const c = yield* categories.create({ name: catalog.categoryNames[i]!, parentId })
      cats.push({ id: c.id, slug: c.slug, name: c.name, parentId })
    }
    const brandRows = []
    for (const n of catalog.brandNames) {
      const b = yield* brands.create({ name: n })
      brandRows.push({ id: b.id, slug: b.slug, name: b.name })
    }
    const created = []
    for (const p of catalog.products) {
      yield* TestClock.adjust(p.step)
      const made = yield* products.create({
        familyId: fams[p.family]!.id,
        name: p.name,
        status: p.status,
        brandId: p.brand === null ? null : brandRows[p.brand]!.id,
        categoryIds: p.categories.map((c) => cats[c]!.id),
        tags: [...p.tags],
        attributes: p.values
      })
      expect(made.tags).toEqual(canonicalAll(p.tags))
      created.push(made)
    }
    for (const u of catalog.updates) {
      yield* TestClock.adjust(u.step)
      yield* products.update(created[u.product]!.id, { status: u.status })
    }
    const rows: Array<Row> = []
    for (let i = 0; i < created.length; i++) {
      const p = yield* products.get(created[i]!.id, {})
      rows.push({
        index: i,
        id: p.id,
        name: p.name,
        slug: p.slug,
        status: p.status,
        familyId: p.familyId,
        brandId: p.brandId,
        categoryIds: catalog.products[i]!.categories.map((c) => cats[c]!.id),
        tags: p.tags,
        createdAt: Date.parse(p.createdAt),
        updatedAt: Date.parse(p.updatedAt),
        values: catalog.products[i]!.values
      })
    }
    return {
      rows,
      families: fams.map((f) => ({ id: f.id, code: f.code, label: f.code })),
      categories: cats,
      brands: brandRows
    } satisfies Made
  })

const UNKNOWN = "00000000-0000-4000-8000-000000000000"

const toQuery = (made: Made, q: QuerySpec): ListProductsQuery & FacetsQuery => {
  const out: Record<string, unknown> = {}
  if (q.status !== undefined) out.status = q.status
  if (q.family !== undefined) out.familyId = made.families[q.family]!.id
  if (q.category !== undefined) out.categoryId = made.categories[q.category]?.id ?? UNKNOWN
  if (q.includeDescendants !== undefined) out.includeDescendants = q.includeDescendants
  if (q.brandId !== undefined) out.brandId = made.brands[q.brandId]?.id ?? UNKNOWN
  if (q.brandName !== undefined) {
    const b = made.brands[q.brandName.index]
    out.brand = b === undefined ? "nobrand" : brandSpelling(b, q.brandName.spelling)
  }
  if (q.tags !== undefined) out.tag = q.tags
  if (q.ids !== undefined) out.ids = q.ids.map((i) => made.rows[i]?.id ?? UNKNOWN)
  if (q.slugOf !== undefined) out.slug = made.rows[q.slugOf]?.slug ?? "no-such-slug"
  if (q.updatedSinceOf !== undefined && made.rows[q.updatedSinceOf] !== undefined) {
    out.updatedSince = new Date(made.rows[q.updatedSinceOf]!.updatedAt).toISOString()
  }
  for (const k of ["filterAttribute", "filterMin", "filterMax", "sortBy", "sortAttribute", "sortDir", "limit", "offset", "withTotal"] as const) {
    if (q[k] !== undefined) out[k] = q[k]
  }
  return out as ListProductsQuery & FacetsQuery
}
