import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, uuid } from "../support/TestHost.js"

/**
 * The rules of the specification's Product, list, sort and filter, facets, tags and bulk
 * sections, each checked over HTTP against the running host, one tenant per block.
 */
let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

const at = (value: unknown) => [{ locale: null, channel: null, value }]
const ids = (r: { json: { data: Array<{ id: string }> } }) => r.json.data.map((p) => p.id)

/** A tenant with one product family declaring the given attributes (`{code: type}`), attached in order. */
const withFamily = async (attributes: Record<string, string | Record<string, unknown>>) => {
  const t = await host.tenant()
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: "goods", label: { en: "Goods" } } })
  for (const [code, spec] of Object.entries(attributes)) {
    const body = typeof spec === "string" ? { code, label: { en: code }, type: spec } : { code, label: { en: code }, ...spec }
    const attribute = await t.req("POST", "/v1/attributes", { body })
    expect([code, attribute.status]).toEqual([code, 201])
    expect((await t.req("POST", `/v1/attribute-families/${family.json.id}/attributes`, { body: { attributeId: attribute.json.id } })).status).toBe(201)
  }
  const create = async (body: Record<string, unknown>) => {
    const r = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, ...body } })
    expect([body.name, r.status, r.json.error]).toEqual([body.name, 201, undefined])
    return r.json as { id: string; slug: string; updatedAt: string; createdAt: string }
  }
  return { t, familyId: family.json.id as string, create }
}

describe("money", () => {
  it("takes amount_cents as any integer a double holds exactly, negative ones too, and sorts and filters by it", async () => {
    const { t, familyId, create } = await withFamily({ price: "money" })
    const most = Number.MAX_SAFE_INTEGER
    const edges = [most, -most, 0, -1]
    const made = []
    for (const cents of edges) made.push(await create({ name: `At ${cents}`, attributes: { price: at({ amount_cents: cents, currency: "EUR" }) } }))
    for (const [i, cents] of edges.entries()) {
      expect((await t.req("GET", `/v1/products/${made[i]?.id}`)).json.attributes.price).toEqual(at({ amount_cents: cents, currency: "EUR" }))
    }
    const sorted = await t.req("GET", "/v1/products?sortBy=attribute&sortAttribute=price")
    expect(ids(sorted)).toEqual([made[1]?.id, made[3]?.id, made[2]?.id, made[0]?.id])
    const top = await t.req("GET", `/v1/products?filterAttribute=price&filterMin=${most}`)
    expect(ids(top)).toEqual([made[0]?.id])
    // One past the safe range, a fraction, a string and a number JSON rounds: each 422 at amount_cents.
    for (const raw of ["9007199254740992", "-9007199254740992", "1.5", "\"100\"", "1e300"]) {
      const r = await t.req("POST", "/v1/products", {
        rawBody: `{"familyId":"${familyId}","name":"Out","attributes":{"price":[{"locale":null,"channel":null,"value":{"amount_cents":${raw},"currency":"EUR"}}]}}`,
        headers: { "content-type": "application/json" }
      })
      expect([raw, r.status, r.json.error.details.issues.map((i: { path: unknown; message: string }) => [i.path, i.message])]).toEqual([
        raw, 422, [[["attributes", "price", 0, "value", "amount_cents"], "must be an integer number of cents from -9007199254740991 to 9007199254740991"]]
      ])
    }
    const modifier = (cents: number) =>
      t.req("POST", "/v1/modifiers", { body: { code: `gift_${cents < 0 ? "m" : "p"}${Math.abs(cents) % 1000}`, name: "Gift", type: "select", options: [{ value: "box", priceAdjustment: { amount_cents: cents, currency: "EUR" } }] } })
    expect((await modifier(-most)).status).toBe(201)
    const over = await modifier(most + 1)
    expect([over.status, over.json.error.details.issues[0]]).toEqual([422, {
      path: ["options", 0, "priceAdjustment", "amount_cents"],
      message: "must be an integer number of cents from -9007199254740991 to 9007199254740991",
      code: expect.any(String)
    }])
  })
})

describe("Product", () => {
  it("answers a created product with the specification's fields and defaults, list-only fields only in list items", async () => {
    const { t, familyId, create } = await withFamily({})
    const created = await t.req("POST", "/v1/products", { body: { familyId, name: "Plain" } })
    expect(created.status).toBe(201)
    // The specification's fields, and DESIGN.md's connector link.
    const fields = ["attributes", "brandId", "createdAt", "createdBy", "familyId", "id", "name", "organizationId", "slug", "sourceConnectorId", "status", "tags", "updatedAt", "updatedBy"]
    expect(Object.keys(created.json).sort()).toEqual(fields)
    expect(created.json).toMatchObject({ familyId, name: "Plain", status: "draft", brandId: null, attributes: {}, tags: [], organizationId: t.organization.id, sourceConnectorId: null })
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
    expect([created.json.createdAt, created.json.updatedAt]).toEqual([expect.stringMatching(iso), expect.stringMatching(iso)])
    for (const by of [created.json.createdBy, created.json.updatedBy]) expect(by === null || /^[0-9a-f-]{36}$/.test(by)).toBe(true)
    const read = await t.req("GET", `/v1/products/${created.json.id}`)
    expect(Object.keys(read.json).sort()).toEqual(fields)
    const patched = await t.req("PATCH", `/v1/products/${created.json.id}`, { body: { name: "Plainer" } })
    expect(Object.keys(patched.json).sort()).toEqual(fields)
    const listed = await t.req("GET", "/v1/products")
    expect(Object.keys(listed.json.data[0]).sort()).toEqual([...fields, "categoryIds", "thumbnailUrl"].sort())
    expect(listed.json.data[0]).toMatchObject({ categoryIds: [], thumbnailUrl: null })
    // List endpoints accept locale and channel but do not resolve values.
    await create({ name: "Other" })
    const localized = await t.req("GET", "/v1/products?locale=en&channel=web")
    expect([localized.status, localized.json.data.some((p: object) => "resolvedAttributes" in p)]).toEqual([200, false])
    const resolved = await t.req("GET", `/v1/products/${created.json.id}?channel=web`)
    expect(resolved.json.resolvedAttributes).toEqual({})
  })

  it("requires familyId and a name of at least one character, and each value entry's locale and channel keys", async () => {
    const { t, familyId } = await withFamily({ colour: "text" })
    const r = async (body: unknown) => {
      const answer = await t.req("POST", "/v1/products", { body })
      return [answer.status, answer.json.error?.code, answer.json.error?.details?.issues.map((i: { path: unknown }) => i.path)]
    }
    expect(await r({ name: "No family" })).toEqual([422, "validation_failed", [["familyId"]]])
    expect(await r({ familyId, name: "" })).toEqual([422, "validation_failed", [["name"]]])
    expect(await r({ familyId })).toEqual([422, "validation_failed", [["name"]]])
    expect(await r({ familyId, name: "x", attributes: { colour: [{ channel: null, value: "red" }] } })).toEqual([422, "validation_failed", [["attributes", "colour", 0, "locale"]]])
    expect(await r({ familyId, name: "x", attributes: { colour: [{ locale: null, value: "red" }] } })).toEqual([422, "validation_failed", [["attributes", "colour", 0, "channel"]]])
    expect(await r({ familyId, name: "x", status: "published" })).toEqual([422, "validation_failed", [["status"]]])
    expect(await r({ familyId: uuid(), name: "Unknown family" })).toEqual([422, "validation_failed", [["familyId"]]])
    expect((await t.req("GET", "/v1/products?withTotal=1")).json.total).toBe(0)
  })

  it("refuses a value an unlocalizable or unscopable attribute cannot carry, an undeclared code, and a value of the wrong shape", async () => {
    const { t, familyId } = await withFamily({ colour: "text", size: { type: "number", isLocalizable: true, isScopable: true } })
    const r = async (attributes: unknown) => {
      const answer = await t.req("POST", "/v1/products", { body: { familyId, name: "x", attributes } })
      return [answer.status, answer.json.error?.details?.issues.map((i: { path: unknown }) => i.path)]
    }
    expect(await r({ colour: [{ locale: "en", channel: null, value: "red" }] })).toEqual([422, [["attributes", "colour", 0, "locale"]]])
    expect(await r({ colour: [{ locale: null, channel: "web", value: "red" }] })).toEqual([422, [["attributes", "colour", 0, "channel"]]])
    expect(await r({ weight: at(1) })).toEqual([422, [["attributes", "weight"]]])
    expect(await r({ size: at("large") })).toEqual([422, [["attributes", "size", 0, "value"]]])
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "x", attributes: { size: [{ locale: "en", channel: "web", value: 4 }] } } })).status).toBe(201)
  })

  it("answers 409 conflict for a slug taken in the organization, on create and update, and takes it in another organization", async () => {
    const { t, create } = await withFamily({})
    const first = await create({ name: "First", slug: "taken" })
    const second = await create({ name: "Second" })
    const clash = await t.req("POST", "/v1/products", { body: { familyId: (await t.req("GET", `/v1/products/${first.id}`)).json.familyId, name: "Again", slug: "taken" } })
    expect([clash.status, clash.json.error.code]).toEqual([409, "conflict"])
    const renamed = await t.req("PATCH", `/v1/products/${second.id}`, { body: { slug: "taken" } })
    expect([renamed.status, renamed.json.error.code]).toEqual([409, "conflict"])
    const other = await withFamily({})
    expect((await other.create({ name: "Elsewhere", slug: "taken" })).slug).toBe("taken")
    for (const slug of ["Taken", "taken_1", "tak en"]) {
      const bad = await t.req("PATCH", `/v1/products/${second.id}`, { body: { slug } })
      expect([slug, bad.status, bad.json.error.details.issues[0].path]).toEqual([slug, 422, ["slug"]])
    }
  })

  it("refuses 422 validation_failed a write setting active while a required attribute is unfilled, and leaves the product unchanged", async () => {
    const { t, familyId, create } = await withFamily({ sku: { type: "text", requirement: "required" } })
    const refused = await t.req("POST", "/v1/products", { body: { familyId, name: "Bare", status: "active" } })
    expect([refused.status, refused.json.error.code, refused.json.error.details.issues[0].path]).toEqual([422, "validation_failed", ["attributes", "sku"]])
    const draft = await create({ name: "Draft" })
    const patch = await t.req("PATCH", `/v1/products/${draft.id}`, { body: { status: "active", name: "Renamed" } })
    expect(patch.status).toBe(422)
    expect((await t.req("GET", `/v1/products/${draft.id}`)).json).toMatchObject({ status: "draft", name: "Draft", updatedAt: draft.updatedAt })
    const filled = await t.req("PATCH", `/v1/products/${draft.id}`, { body: { status: "active", attributes: { sku: at("A-1") } } })
    expect([filled.status, filled.json.status]).toEqual([200, "active"])
  })

  it("emits product.created on create and product.updated with changed_fields on update, into the audit log", async () => {
    const { t, create } = await withFamily({})
    const p = await create({ name: "Logged" })
    await t.req("PATCH", `/v1/products/${p.id}`, { body: { name: "Logged again" } })
    const log = await t.req("GET", `/v1/audit-log?entity_type=product&entity_id=${p.id}`)
    const entries = log.json.data as Array<{ name: string; actor: { type: string }; payload: Record<string, unknown> }>
    expect(entries.map((e) => e.name).sort()).toEqual(["product.created", "product.updated"])
    expect(entries.every((e) => e.actor.type === "api_key")).toBe(true)
    expect(entries.find((e) => e.name === "product.updated")?.payload.changed_fields).toEqual(["name"])
  })

  it("answers 404 not_found for another organization's product, exactly as for one that does not exist", async () => {
    const mine = await withFamily({})
    const p = await mine.create({ name: "Mine" })
    const other = await host.tenant()
    const theirs = await other.req("GET", `/v1/products/${p.id}`)
    const missing = uuid()
    const nowhere = await other.req("GET", `/v1/products/${missing}`)
    expect([theirs.status, theirs.json]).toEqual([404, JSON.parse(JSON.stringify(nowhere.json).replace(missing, p.id))])
    expect((await other.req("PATCH", `/v1/products/${p.id}`, { body: { name: "Stolen" } })).status).toBe(404)
    expect((await other.req("DELETE", `/v1/products/${p.id}`)).status).toBe(404)
    expect((await other.req("GET", `/v1/products?ids=${p.id}&withTotal=1`)).json.total).toBe(0)
    expect((await mine.t.req("GET", `/v1/products/${p.id}`)).json.name).toBe("Mine")
  })
})

describe("list parameters", () => {
  it("answers {data, limit, offset, hasMore} with total only when withTotal is true or 1, limit 50 and offset 0 by default", async () => {
    const { t, create } = await withFamily({})
    for (let i = 0; i < 52; i++) await create({ name: `P${String(i).padStart(2, "0")}` })
    const page = await t.req("GET", "/v1/products")
    expect(Object.keys(page.json).sort()).toEqual(["data", "hasMore", "limit", "offset"])
    expect([page.json.data.length, page.json.limit, page.json.offset, page.json.hasMore]).toEqual([50, 50, 0, true])
    for (const [value, total] of [["true", 52], ["1", 52], ["false", undefined], ["0", undefined]] as const) {
      expect([value, (await t.req("GET", `/v1/products?withTotal=${value}`)).json.total]).toEqual([value, total])
    }
    const last = await t.req("GET", "/v1/products?limit=2&offset=50")
    expect([last.json.data.length, last.json.hasMore, last.json.limit, last.json.offset]).toEqual([2, false, 2, 50])
    expect((await t.req("GET", "/v1/products?limit=200")).json.data.length).toBe(52)
    expect((await t.req("GET", "/v1/products?offset=52")).json).toEqual({ data: [], limit: 50, offset: 52, hasMore: false })
    for (const bad of ["limit=0", "limit=201", "limit=1.5", "offset=-1", "offset=x", "withTotal=yes", "sortDir=up", "sortBy=price", "status=deleted"]) {
      const r = await t.req("GET", `/v1/products?${bad}`)
      expect([bad, r.status, r.json.error.details.issues[0].path]).toEqual([bad, 422, [bad.split("=")[0]]])
    }
  })

  it("filters by status, familyId, slug exactly, brand by name or slug, brandId, ids and updatedSince", async () => {
    const { t, familyId, create } = await withFamily({})
    const otherFamily = await t.req("POST", "/v1/attribute-families", { body: { code: "other", label: { en: "Other" } } })
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Acme Tools", slug: "acme" } })
    const a = await create({ name: "Alpha", slug: "alpha", status: "active", brandId: brand.json.id })
    const b = await create({ name: "Alphabet", slug: "alpha-bet", status: "archived" })
    const c = (await t.req("POST", "/v1/products", { body: { familyId: otherFamily.json.id, name: "Gamma" } })).json
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("status=active")).toEqual([a.id])
    expect(await list("status=draft")).toEqual([c.id])
    expect(await list(`familyId=${familyId}`)).toEqual([a.id, b.id])
    expect(await list("slug=alpha")).toEqual([a.id])
    expect(await list("slug=alph")).toEqual([])
    expect(await list("brand=acme")).toEqual([a.id])
    expect(await list("brand=ACME%20tools")).toEqual([a.id])
    expect(await list(`brandId=${brand.json.id}`)).toEqual([a.id])
    expect(await list(`ids=${c.id}`)).toEqual([c.id])
    expect(await list(`ids=${c.id}&ids=${a.id}`)).toEqual([a.id, c.id])
    const later = await t.req("PATCH", `/v1/products/${a.id}`, { body: { name: "Alpha 2" } })
    expect(await list(`updatedSince=${encodeURIComponent(later.json.updatedAt)}`)).toEqual([a.id])
    for (const bad of ["familyId=x", "brandId=x", "connectorId=x", "categoryId=x", "updatedSince=yesterday", "slug="]) {
      const r = await t.req("GET", `/v1/products?${bad}`)
      expect([bad, r.status, r.json.error.details.issues[0].path[0]]).toEqual([bad, 422, bad.split("=")[0]])
    }
    expect(await list(`connectorId=${uuid()}`)).toEqual([])
    // ids are strings in the table, not UUIDs: one that is no UUID names no product.
    expect(await list("ids=x")).toEqual([])
  })

  it("filters a category self-only, or its whole subtree as one result set with includeDescendants true or 1", async () => {
    const { t, create } = await withFamily({})
    const root = (await t.req("POST", "/v1/categories", { body: { name: "Root" } })).json
    const child = (await t.req("POST", "/v1/categories", { body: { name: "Child", parentId: root.id } })).json
    const grandchild = (await t.req("POST", "/v1/categories", { body: { name: "Grandchild", parentId: child.id } })).json
    const inRoot = await create({ name: "In root", categoryIds: [root.id] })
    const inGrandchild = await create({ name: "In grandchild", categoryIds: [grandchild.id] })
    const inBoth = await create({ name: "In both", categoryIds: [root.id, grandchild.id] })
    await create({ name: "Uncategorized" })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?categoryId=${root.id}&withTotal=1${query}`))
    expect(await list("")).toEqual([inRoot.id, inBoth.id])
    expect(await list("&includeDescendants=false")).toEqual([inRoot.id, inBoth.id])
    expect(await list("&includeDescendants=0")).toEqual([inRoot.id, inBoth.id])
    expect(await list("&includeDescendants=true")).toEqual([inRoot.id, inGrandchild.id, inBoth.id])
    expect(await list("&includeDescendants=1&limit=2")).toEqual([inRoot.id, inGrandchild.id])
    expect((await t.req("GET", `/v1/products?categoryId=${root.id}&includeDescendants=1&withTotal=1`)).json.total).toBe(3)
    expect(ids(await t.req("GET", `/v1/products?categoryId=${child.id}`))).toEqual([])
    expect((await t.req("GET", `/v1/products?categoryId=${root.id}&includeDescendants=yes`)).status).toBe(422)
  })

  it("sorts by name, slug, status, createdAt and updatedAt in either direction, ascending by default", async () => {
    const { t, create } = await withFamily({})
    const b = await create({ name: "banana", slug: "b-slug", status: "draft" })
    const a = await create({ name: "Apple", slug: "c-slug", status: "active" })
    const c = await create({ name: "cherry", slug: "a-slug", status: "archived" })
    await t.req("PATCH", `/v1/products/${b.id}`, { body: { name: "banana!" } })
    const order = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await order("")).toEqual([b.id, a.id, c.id])
    expect(await order("sortBy=name")).toEqual([a.id, b.id, c.id])
    expect(await order("sortBy=name&sortDir=desc")).toEqual([c.id, b.id, a.id])
    expect(await order("sortBy=slug")).toEqual([c.id, b.id, a.id])
    expect(await order("sortBy=status&sortDir=asc")).toEqual([a.id, c.id, b.id])
    expect(await order("sortBy=createdAt&sortDir=desc")).toEqual([c.id, a.id, b.id])
    expect(await order("sortBy=updatedAt&sortDir=desc")).toEqual([b.id, c.id, a.id])
  })

  it("searches q across name, slug and attribute text, near misses included, and resolves no slug by it", async () => {
    const { t, create } = await withFamily({ blurb: "textarea", weight: "number" })
    const byName = await create({ name: "Electric kettle", slug: "p-1" })
    const bySlug = await create({ name: "First", slug: "kettle-stand" })
    const byText = await create({ name: "Second", slug: "p-2", attributes: { blurb: at("Pairs with any kettle"), weight: at(1) } })
    await create({ name: "Toaster", slug: "p-3", attributes: { weight: at(2) } })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("q=kettle")).toEqual([byName.id, bySlug.id, byText.id])
    expect(await list("q=kettel")).toEqual([byName.id, bySlug.id, byText.id])
    expect(await list("q=kettle&sortBy=name&sortDir=desc")).toEqual([byText.id, bySlug.id, byName.id])
    expect(await list("q=kettle&filterAttribute=weight&filterMin=0")).toEqual([byText.id])
    expect(await list("slug=kettle")).toEqual([])
  })

  it("matches records carrying every listed tag, canonicalizing the filter values as on write", async () => {
    const { t, create } = await withFamily({})
    const both = await create({ name: "Both", tags: ["Summer Sale", "Blue"] })
    const one = await create({ name: "One", tags: ["summer-sale"] })
    await create({ name: "None", tags: ["red"] })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("tag=summer-sale")).toEqual([both.id, one.id])
    expect(await list(`tag=${encodeURIComponent("SUMMER  sale!")}&tag=blue`)).toEqual([both.id])
    expect(await list(`tag=${encodeURIComponent("Sümmer_Sale")}`)).toEqual([both.id, one.id])
    expect(await list("tag=blue&tag=red")).toEqual([])
  })
})

describe("attribute sort and filter", () => {
  const numeric = {
    price: "money",
    weight: "number",
    ratio: "decimal",
    length: "measurement",
    label_text: "text",
    local_price: { type: "money", isLocalizable: true }
  } as const

  it("sorts and filters money by amount_cents whatever the currency, number and decimal by value, bounds inclusive", async () => {
    const { t, create } = await withFamily(numeric)
    const cheap = await create({ name: "Cheap", attributes: { price: at({ amount_cents: 999, currency: "JPY" }), weight: at(3), ratio: at("0.5") } })
    const ten = await create({ name: "Ten", attributes: { price: at({ amount_cents: 1000, currency: "EUR" }), weight: at(1.5), ratio: at("10.25") } })
    const dear = await create({ name: "Dear", attributes: { price: at({ amount_cents: 25000, currency: "USD" }), weight: at(-2), ratio: at("2") } })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("sortBy=attribute&sortAttribute=price")).toEqual([cheap.id, ten.id, dear.id])
    expect(await list("sortBy=attribute&sortAttribute=price&sortDir=desc")).toEqual([dear.id, ten.id, cheap.id])
    expect(await list("filterAttribute=price&filterMin=1000")).toEqual([ten.id, dear.id])
    expect(await list("filterAttribute=price&filterMax=1000")).toEqual([cheap.id, ten.id])
    expect(await list("filterAttribute=price&filterMin=1000&filterMax=1000")).toEqual([ten.id])
    expect(await list("sortBy=attribute&sortAttribute=weight")).toEqual([dear.id, ten.id, cheap.id])
    expect(await list("filterAttribute=weight&filterMin=-2&filterMax=1.5")).toEqual([ten.id, dear.id])
    expect(await list("sortBy=attribute&sortAttribute=ratio&sortDir=desc")).toEqual([ten.id, dear.id, cheap.id])
    expect(await list("filterAttribute=ratio&filterMin=1e0&filterMax=10.25")).toEqual([ten.id, dear.id])
  })

  it("reads the value at the default scope only: a product without it sorts last in both directions and is excluded by either bound", async () => {
    const { t, create } = await withFamily(numeric)
    const none = await create({ name: "No price" })
    const high = await create({ name: "High", attributes: { price: at({ amount_cents: 900, currency: "EUR" }), local_price: at({ amount_cents: 900, currency: "EUR" }) } })
    const scoped = await create({ name: "Scoped only", attributes: { local_price: [{ locale: "en", channel: null, value: { amount_cents: 1, currency: "EUR" } }] } })
    const low = await create({ name: "Low", attributes: { price: at({ amount_cents: 100, currency: "EUR" }), local_price: at({ amount_cents: 100, currency: "EUR" }) } })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("sortBy=attribute&sortAttribute=price")).toEqual([low.id, high.id, none.id, scoped.id])
    // Among themselves, the products without a value break the tie by id in the sort's direction.
    expect(await list("sortBy=attribute&sortAttribute=price&sortDir=desc")).toEqual([high.id, low.id, scoped.id, none.id])
    expect(await list("sortBy=attribute&sortAttribute=local_price")).toEqual([low.id, high.id, none.id, scoped.id])
    expect(await list("sortBy=attribute&sortAttribute=local_price&sortDir=desc")).toEqual([high.id, low.id, scoped.id, none.id])
    expect(await list("filterAttribute=local_price&filterMin=-1000000")).toEqual([high.id, low.id])
    expect(await list("filterAttribute=local_price&filterMax=1000000")).toEqual([high.id, low.id])
    expect((await t.req("GET", "/v1/products?filterAttribute=price&filterMax=1000000&withTotal=1")).json.total).toBe(2)
  })

  it("answers 422 for sortBy=price, a measurement, an unknown code or one of the wrong type, never falling back to name order", async () => {
    const { t } = await withFamily(numeric)
    const category = await t.req("POST", "/v1/attributes", { body: { code: "category_rank", label: {}, type: "number", entityKind: "category" } })
    expect(category.status).toBe(201)
    const refused = [
      ["sortBy=price", "sortBy"],
      ["sortBy=attribute&sortAttribute=length", "sortAttribute"],
      ["filterAttribute=length&filterMin=1", "filterAttribute"],
      ["sortBy=attribute&sortAttribute=nope", "sortAttribute"],
      ["filterAttribute=nope&filterMax=1", "filterAttribute"],
      ["sortBy=attribute&sortAttribute=label_text", "sortAttribute"],
      ["filterAttribute=label_text&filterMin=0", "filterAttribute"],
      ["sortBy=attribute&sortAttribute=category_rank", "sortAttribute"],
      ["sortBy=attribute&sortAttribute=", "sortAttribute"],
      ["filterAttribute=&filterMin=1", "filterAttribute"],
      ["filterAttribute=price&filterMin=ten", "filterMin"]
    ] as const
    for (const [query, key] of refused) {
      for (const path of ["/v1/products", "/v1/products/facets"]) {
        const r = await t.req("GET", `${path}?${query}`)
        expect([path, query, r.status, r.json.error?.code, r.json.error?.details.issues[0].path[0]]).toEqual([path, query, 422, "validation_failed", key])
      }
    }
  })

  it("takes sortAttribute and filterAttribute independently: sorting by one while filtering by another", async () => {
    const { t, create } = await withFamily(numeric)
    const a = await create({ name: "A", attributes: { price: at({ amount_cents: 300, currency: "EUR" }), weight: at(1) } })
    const b = await create({ name: "B", attributes: { price: at({ amount_cents: 100, currency: "EUR" }), weight: at(5) } })
    const c = await create({ name: "C", attributes: { price: at({ amount_cents: 200, currency: "EUR" }), weight: at(9) } })
    await create({ name: "D", attributes: { weight: at(7) } })
    const list = async (query: string) => ids(await t.req("GET", `/v1/products?${query}`))
    expect(await list("sortBy=attribute&sortAttribute=price&filterAttribute=weight&filterMin=2")).toEqual([b.id, c.id, expect.any(String)])
    expect(await list("sortBy=attribute&sortAttribute=weight&sortDir=desc&filterAttribute=price&filterMax=250")).toEqual([c.id, b.id])
    expect(await list("sortBy=name&filterAttribute=price&filterMin=150")).toEqual([a.id, c.id])
  })
})

describe("facets", () => {
  it("answers total and every dimension in the shapes given, each counted with all other filters applied", async () => {
    const { t, familyId, create } = await withFamily({})
    const brand = (await t.req("POST", "/v1/brands", { body: { name: "Acme" } })).json
    const category = (await t.req("POST", "/v1/categories", { body: { name: "Shoes", slug: "shoes" } })).json
    await create({ name: "A", status: "active", brandId: brand.id, categoryIds: [category.id], tags: ["red"] })
    await create({ name: "B", status: "active", tags: ["red", "blue"] })
    await create({ name: "C", status: "draft", brandId: brand.id, categoryIds: [category.id], tags: ["blue"] })
    const all = await t.req("GET", "/v1/products/facets")
    expect(all.status).toBe(200)
    expect(all.json).toEqual({
      total: 3,
      families: [{ id: familyId, code: "goods", label: "Goods", count: 3 }],
      statuses: [{ value: "active", count: 2 }, { value: "draft", count: 1 }],
      categories: [{ id: category.id, slug: "shoes", name: "Shoes", count: 2 }],
      brands: [{ id: brand.id, name: "Acme", count: 2 }],
      connectors: [],
      tags: [{ value: "blue", count: 2 }, { value: "red", count: 2 }]
    })
    const active = await t.req("GET", "/v1/products/facets?status=active")
    expect(active.json).toMatchObject({
      total: 2,
      // The status dimension leaves its own filter out; every other dimension has it applied.
      statuses: [{ value: "active", count: 2 }, { value: "draft", count: 1 }],
      brands: [{ id: brand.id, name: "Acme", count: 1 }],
      categories: [{ id: category.id, slug: "shoes", name: "Shoes", count: 1 }],
      tags: [{ value: "red", count: 2 }, { value: "blue", count: 1 }]
    })
    const blue = await t.req("GET", "/v1/products/facets?tag=blue&brandId=" + brand.id)
    expect(blue.json).toMatchObject({ total: 1, statuses: [{ value: "draft", count: 1 }], brands: [{ id: brand.id, name: "Acme", count: 1 }] })
    expect((await t.req("GET", "/v1/products/facets?colour=red")).status).toBe(422)
  })

  it("caps categories, brands and tags at 30, families at 50, and raises every cap at once with facetLimit", async () => {
    const t = await host.tenant()
    const families: Array<string> = []
    for (let i = 0; i < 51; i++) {
      families.push((await t.req("POST", "/v1/attribute-families", { body: { code: `f${i}`, label: { en: `F${i}` } } })).json.id)
    }
    for (let i = 0; i < 31; i++) {
      const brand = (await t.req("POST", "/v1/brands", { body: { name: `Brand ${i}` } })).json
      const category = (await t.req("POST", "/v1/categories", { body: { name: `Category ${i}` } })).json
      await t.req("POST", "/v1/products", { body: { familyId: families[i], name: `P${i}`, brandId: brand.id, categoryIds: [category.id], tags: [`t${i}`] } })
    }
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items: families.slice(31).map((familyId, i) => ({ op: "create", familyId, name: `Q${i}` })) } })
    expect(bulk.json.results.every((r: { ok: boolean }) => r.ok)).toBe(true)
    const lengths = (r: { json: Record<string, unknown> }) =>
      Object.fromEntries(["families", "statuses", "categories", "brands", "connectors", "tags"].map((k) => [k, (r.json[k] as Array<unknown>).length]))
    const capped = await t.req("GET", "/v1/products/facets")
    expect([capped.json.total, lengths(capped)]).toEqual([51, { families: 50, statuses: 1, categories: 30, brands: 30, connectors: 0, tags: 30 }])
    const raised = await t.req("GET", "/v1/products/facets?facetLimit=500")
    expect(lengths(raised)).toEqual({ families: 51, statuses: 1, categories: 31, brands: 31, connectors: 0, tags: 31 })
    const lowered = await t.req("GET", "/v1/products/facets?facetLimit=2")
    expect(lengths(lowered)).toEqual({ families: 2, statuses: 1, categories: 2, brands: 2, connectors: 0, tags: 2 })
    for (const bad of ["facetLimit=0", "facetLimit=501", "facetLimit=x", "includeEmpty=maybe"]) {
      expect([bad, (await t.req("GET", `/v1/products/facets?${bad}`)).status]).toEqual([bad, 422])
    }
    // facetLimit and includeEmpty belong to facets only.
    expect((await t.req("GET", "/v1/products?facetLimit=5")).status).toBe(422)
  })

  it("counts a category's whole subtree with includeDescendants on, and only products filed directly against it off", async () => {
    const { t, create } = await withFamily({})
    const root = (await t.req("POST", "/v1/categories", { body: { name: "Root" } })).json
    const child = (await t.req("POST", "/v1/categories", { body: { name: "Child", parentId: root.id } })).json
    await create({ name: "In root", categoryIds: [root.id] })
    await create({ name: "In child", categoryIds: [child.id] })
    await create({ name: "In both", categoryIds: [root.id, child.id] })
    const counts = async (query: string) =>
      Object.fromEntries((await t.req("GET", `/v1/products/facets?${query}`)).json.categories.map((c: { name: string; count: number }) => [c.name, c.count]))
    expect(await counts("")).toEqual({ Root: 2, Child: 2 })
    expect(await counts("includeDescendants=true")).toEqual({ Root: 3, Child: 2 })
    expect(await counts("includeDescendants=0")).toEqual({ Root: 2, Child: 2 })
    const filtered = await t.req("GET", `/v1/products/facets?categoryId=${root.id}&includeDescendants=1`)
    expect(filtered.json.total).toBe(3)
    expect((await t.req("GET", `/v1/products/facets?categoryId=${root.id}`)).json.total).toBe(2)
  })

  it("lists families, statuses, categories and brands no matching product carries with count 0 when includeEmpty is on", async () => {
    const { t, create } = await withFamily({})
    const brand = (await t.req("POST", "/v1/brands", { body: { name: "Idle" } })).json
    await t.req("POST", "/v1/categories", { body: { name: "Empty" } })
    await create({ name: "Only", status: "active" })
    const plain = await t.req("GET", "/v1/products/facets")
    expect([plain.json.statuses, plain.json.brands, plain.json.categories]).toEqual([[{ value: "active", count: 1 }], [], []])
    const empty = await t.req("GET", "/v1/products/facets?includeEmpty=true")
    expect(empty.json.statuses).toEqual([{ value: "active", count: 1 }, { value: "archived", count: 0 }, { value: "draft", count: 0 }])
    expect(empty.json.brands).toEqual([{ id: brand.id, name: "Idle", count: 0 }])
    expect(empty.json.categories).toEqual([expect.objectContaining({ name: "Empty", count: 0 })])
    // A family label is a string or null: null where the family has no label at all.
    const unlabelled = await t.req("POST", "/v1/attribute-families", { body: { code: "unlabelled", label: {} } })
    expect((await t.req("GET", "/v1/products/facets?includeEmpty=1")).json.families).toContainEqual({ id: unlabelled.json.id, code: "unlabelled", label: null, count: 0 })
  })
})

describe("tags", () => {
  it("canonicalizes in the seven steps' order, and the returned array can be shorter than the one sent", async () => {
    const { t, create } = await withFamily({})
    const p = await create({ name: "Tagged", tags: ["Été Sale!", "ete-sale", "  --Blue__Green--  ", "!!!", "Crème Brûlée", "blue-green"] })
    expect((await t.req("GET", `/v1/products/${p.id}`)).json.tags).toEqual(["ete-sale", "blue-green", "creme-brulee"])
    // Two tags alike in their first 60 characters collapse into one; truncation after trimming can leave a trailing "-".
    const long = await create({ name: "Long", tags: [`${"a".repeat(59)} one`, `${"a".repeat(59)} two`, `${"b".repeat(70)}`] })
    expect((await t.req("GET", `/v1/products/${long.id}`)).json.tags).toEqual([`${"a".repeat(59)}-`, "b".repeat(60)])
    expect(ids(await t.req("GET", `/v1/products?tag=${"a".repeat(59)}%20three`))).toEqual([long.id])
    const updated = await t.req("PATCH", `/v1/products/${p.id}`, { body: { tags: ["NEW tag", "new-TAG"] } })
    expect(updated.json.tags).toEqual(["new-tag"])
  })

  it("takes at most 50 tags of 1 to 80 characters on create and update, and 422 beyond", async () => {
    const { t, familyId, create } = await withFamily({})
    const fifty = Array.from({ length: 50 }, (_, i) => `tag${i}`)
    const p = await create({ name: "Fifty", tags: fifty })
    const cases = [[...fifty, "tag50"], [""], ["x".repeat(81)]]
    for (const tags of cases) {
      const created = await t.req("POST", "/v1/products", { body: { familyId, name: "Over", tags } })
      const updated = await t.req("PATCH", `/v1/products/${p.id}`, { body: { tags } })
      for (const r of [created, updated]) expect([tags.length, r.status, r.json.error.details.issues[0].path[0]]).toEqual([tags.length, 422, "tags"])
    }
    expect((await t.req("PATCH", `/v1/products/${p.id}`, { body: { tags: ["x".repeat(80)] } })).json.tags).toEqual(["x".repeat(60)])
    // Fifty-one sent that canonicalize to fewer are still too many on input.
    const repeated = await t.req("POST", "/v1/products", { body: { familyId, name: "Repeats", tags: Array.from({ length: 51 }, () => "same") } })
    expect(repeated.status).toBe(422)
  })
})

describe("bulk", () => {
  it("answers 200 with a results array in item order, {ok: true, index, id} or {ok: false, index, error}, each item standing alone", async () => {
    const { t, familyId, create } = await withFamily({})
    const existing = await create({ name: "Existing", slug: "existing" })
    const doomed = await create({ name: "Doomed" })
    const r = await t.req("POST", "/v1/products/bulk", {
      body: {
        items: [
          { op: "create", familyId, name: "New", slug: "new-one" },
          { op: "create", familyId, name: "Clash", slug: "existing" },
          { op: "update", id: existing.id, name: "Existing renamed" },
          { op: "delete", id: doomed.id },
          { op: "update", id: uuid(), name: "Nobody" },
          { op: "create", familyId, name: "" },
          { op: "upsert", familyId, name: "Unknown op" }
        ]
      }
    })
    expect(r.status).toBe(200)
    const results = r.json.results as Array<{ ok: boolean; index: number; id?: string; error?: { code: string; message: string } }>
    expect(Object.keys(r.json)).toEqual(["results"])
    expect(results.map((x) => [x.index, x.ok, x.error?.code])).toEqual([
      [0, true, undefined], [1, false, "conflict"], [2, true, undefined], [3, true, undefined],
      [4, false, "not_found"], [5, false, "validation_failed"], [6, false, "validation_failed"]
    ])
    expect(results[0]).toEqual({ ok: true, index: 0, id: expect.any(String) })
    expect(results[2]).toEqual({ ok: true, index: 2, id: existing.id })
    expect(results[3]).toEqual({ ok: true, index: 3, id: doomed.id })
    expect(results[1]).toEqual({ ok: false, index: 1, error: { code: "conflict", message: expect.any(String) } })
    expect((await t.req("GET", `/v1/products/${results[0]?.id}`)).json.slug).toBe("new-one")
    expect((await t.req("GET", `/v1/products/${existing.id}`)).json.name).toBe("Existing renamed")
    expect((await t.req("GET", `/v1/products/${doomed.id}`)).status).toBe(404)
    const created = await t.req("GET", "/v1/audit-log?action=created&entity_type=product")
    expect(created.json.data.filter((e: { entityId: string }) => e.entityId === results[0]?.id)).toHaveLength(1)
  })
})
