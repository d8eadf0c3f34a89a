import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant, uuid } from "../support/TestHost.js"

let host: TestHost
let t: TestTenant
let familyId: string

beforeAll(async () => {
  host = await startTestHost()
  t = await host.tenant()
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: "shoes", label: { en: "Shoes" } } })
  familyId = family.json.id
})
afterAll(() => host.close())

describe("GET /v1/products query validation", () => {
  it("refuses unknown keys naming them, out-of-range pages and values that are not booleans", async () => {
    const unknown = await t.req("GET", "/v1/products?colour=red")
    expect(unknown.status).toBe(422)
    expect(unknown.json.error.details.issues[0].path).toEqual(["colour"])
    for (const path of ["/v1/products?__proto__=x&limit=1", "/v1/products/facets?%5F%5Fproto__=1", "/v1/categories?q=a&__proto__", "/v1/brands?__%70roto__=1"]) {
      const proto = await t.req("GET", path)
      expect([path, proto.status, proto.json.error.details.issues]).toEqual([path, 422, [{ path: ["__proto__"], message: "is unexpected", code: "unrecognized_key" }]])
    }
    for (const q of ["limit=0", "limit=201", "offset=-1", "withTotal=yes", "sortBy=price"]) {
      const r = await t.req("GET", `/v1/products?${q}`)
      expect([q, r.status, r.json.error.code]).toEqual([q, 422, "validation_failed"])
    }
    // An offset past what a double holds exactly is an integer, so the message names the bound.
    const far = await t.req("GET", "/v1/products?offset=9223372036854775807")
    expect([far.status, far.json.error.details.issues]).toEqual([422, [{ path: ["offset"], message: "must be an integer from 0 to 9007199254740991", code: "invalid" }]])
    // Every paged list words its bounds alike.
    for (const path of ["/v1/products?limit=0", "/v1/audit-log?limit=0", "/v1/content-pages?limit=x"]) {
      const r = await t.req("GET", path)
      expect([path, r.json.error.details.issues]).toEqual([path, [{ path: ["limit"], message: "must be an integer from 1 to 200", code: "invalid" }]])
    }
  })

  it("refuses an empty locale or channel on every product read, naming the key", async () => {
    const p = await t.req("POST", "/v1/products", { body: { familyId, name: "Scoped" } })
    for (const route of ["/v1/products", "/v1/products/facets", `/v1/products/${p.json.id}`]) {
      for (const key of ["locale", "channel"]) {
        const r = await t.req("GET", `${route}?${key}=`)
        expect([route, r.status, r.json.error.details.issues]).toEqual([route, 422, [{ path: [key], message: "must not be empty", code: "invalid" }]])
      }
      expect([route, (await t.req("GET", `${route}?locale=en&channel=web`)).status]).toEqual([route, 200])
    }
  })

  it("names every unknown key and every bad value at once, one issue each", async () => {
    const r = await t.req("GET", "/v1/products?colour=red&size=xl&limit=x")
    expect(r.status).toBe(422)
    expect(r.json.error.details.issues.map((i: { path: Array<string> }) => i.path)).toEqual([["colour"], ["size"], ["limit"]])
  })

  it("takes integers and numbers only in decimal notation", async () => {
    for (const q of ["limit=0x10", "limit=1e1", "limit=%2B5", "limit=5%20", "offset=%205", "filterAttribute=x&filterMin=0x10", "filterAttribute=x&filterMax=Infinity"]) {
      const r = await t.req("GET", `/v1/products?${q}`)
      expect([q, r.status, r.json.error.details.issues[0].path[0]]).toEqual([q, 422, q.split("&").at(-1)?.split("=")[0]])
    }
    expect((await t.req("GET", "/v1/products?limit=5&offset=0")).status).toBe(200)
  })

  it("takes dates and date-times only on days that exist", async () => {
    for (const path of ["/v1/products?updatedSince=2026-02-30T00:00:00Z", "/v1/audit-log?since=2026-02-31", "/v1/audit-log?until=2026-04-31T10:00:00%2B02:00"]) {
      expect([path, (await t.req("GET", path)).status]).toEqual([path, 422])
    }
    for (const path of ["/v1/products?updatedSince=2024-02-29T00:00:00Z", "/v1/audit-log?since=2024-02-29"]) {
      expect([path, (await t.req("GET", path)).status]).toEqual([path, 200])
    }
  })

  it("takes date-times only within the years 0000 to 9999 once in UTC, where their text orders as their instants", async () => {
    const beyond = encodeURIComponent("9999-12-31T23:59:59-23:59")
    for (const path of [`/v1/products?updatedSince=${beyond}`, `/v1/audit-log?since=${beyond}`]) {
      expect([path, (await t.req("GET", path)).status]).toEqual([path, 422])
    }
    const key = await t.sreq("POST", "/v1/api-keys", { body: { name: "far", expiresAt: "9999-12-31T23:59:59-23:59" } })
    // Well-formed, with a zone: the message names the bound it is past, not only the format.
    expect([key.status, key.json.error.details.issues]).toEqual([422, [{
      path: ["expiresAt"],
      message: "must be an ISO 8601 date-time with a zone, on a day that exists, in the years 0000 to 9999 once in UTC",
      code: "invalid"
    }]])
    const last = await t.sreq("POST", "/v1/api-keys", { body: { name: "last", expiresAt: "9999-12-31T23:59:59Z" } })
    expect([last.status, last.json.expiresAt]).toEqual([201, "9999-12-31T23:59:59.000Z"])
  })

  it("keeps updatedSince inclusive and the audit bounds in their meaning between two milliseconds and up to the end of 9999", async () => {
    const p = await t.req("POST", "/v1/products", { body: { familyId, name: "Stamped" } })
    const at = p.json.updatedAt as string
    const between = (ms: number) => `${new Date(Date.parse(at) + ms).toISOString().slice(0, 23)}0001Z`
    const since = async (bound: string) =>
      (await t.req("GET", `/v1/products?ids=${p.json.id}&updatedSince=${bound}`)).json.data.map((x: { id: string }) => x.id)
    expect(await since(at)).toEqual([p.json.id])
    expect(await since(between(-1))).toEqual([p.json.id])
    expect(await since(between(0))).toEqual([])
    const last = "9999-12-31T23:59:59.9999Z"
    expect(await since(last)).toEqual([])
    const audit = async (query: string) => (await t.req("GET", `/v1/audit-log?entity_id=${p.json.id}&${query}`)).json.data.length
    expect([await audit(`since=${last}`), await audit(`until=${last}`)]).toEqual([0, 1])
  })

  it("canonicalizes ?tag= as on write and takes ids repeated or comma-separated", async () => {
    const a = await t.req("POST", "/v1/products", { body: { familyId, name: "A", tags: ["Été Sale"] } })
    const b = await t.req("POST", "/v1/products", { body: { familyId, name: "B" } })
    const byTag = await t.req("GET", `/v1/products?tag=${encodeURIComponent("ÉTÉ  sale!")}`)
    expect(byTag.json.data.map((p: { id: string }) => p.id)).toEqual([a.json.id])
    const byIds = await t.req("GET", `/v1/products?ids=${a.json.id},${b.json.id}&withTotal=1`)
    expect(byIds.json.total).toBe(2)
    expect(byIds.json.data[0]).toMatchObject({ thumbnailUrl: null, categoryIds: [] })
    const noIds = await t.req("GET", "/v1/products?ids=&withTotal=1")
    expect([noIds.status, noIds.json.total]).toEqual([200, 0])
    // The table types ids as strings: one that is no UUID names no product, as an unknown one does.
    const notUuids = await t.req("GET", `/v1/products?ids=not-a-uuid,${a.json.id.toUpperCase()}&ids=42&withTotal=1`)
    expect([notUuids.status, notUuids.json.data.map((p: { id: string }) => p.id)]).toEqual([200, [a.json.id]])
    const none = await t.req("GET", "/v1/products?ids=not-a-uuid&withTotal=1")
    expect([none.status, none.json.total]).toEqual([200, 0])
  })

  it("takes an empty brand as the string the table types it as, matching no product, and refuses an empty slug", async () => {
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Empty Brand Probe" } })
    await t.req("POST", "/v1/products", { body: { familyId, name: "Branded", brandId: brand.json.id } })
    await t.req("POST", "/v1/products", { body: { familyId, name: "Unbranded" } })
    const listed = await t.req("GET", "/v1/products?brand=&withTotal=true")
    expect([listed.status, listed.json.total]).toEqual([200, 0])
    const facets = await t.req("GET", "/v1/products/facets?brand=")
    expect([facets.status, facets.json.total]).toEqual([200, 0])
    const slug = await t.req("GET", "/v1/products?slug=")
    expect([slug.status, slug.json.error.details.issues[0].path]).toEqual([422, ["slug"]])
  })

  it("lists everything for a q without letters or digits, in creation order when ranked by relevance", async () => {
    const all = await t.req("GET", "/v1/products?withTotal=true&limit=200")
    const created = all.json.data.map((p: { id: string }) => p.id)
    expect(created.length).toBeGreaterThan(1)
    for (const q of ["", "%20%20", "!!!"]) {
      const r = await t.req("GET", `/v1/products?q=${q}&withTotal=true`)
      expect([q, r.status, r.json.total]).toEqual([q, 200, all.json.total])
      for (const dir of ["asc", "desc"]) {
        const ranked = await t.req("GET", `/v1/products?q=${q}&sortBy=relevance&sortDir=${dir}&limit=200`)
        expect([q, dir, ranked.status, ranked.json.data.map((p: { id: string }) => p.id)]).toEqual([q, dir, 200, created])
      }
    }
    const unsearched = await t.req("GET", "/v1/products?sortBy=relevance&limit=200")
    expect([unsearched.status, unsearched.json.data.map((p: { id: string }) => p.id)]).toEqual([200, created])
  })
})

describe("ids", () => {
  it("takes a UUID in upper case as the same id, in paths, bodies and queries", async () => {
    const category = await t.req("POST", "/v1/categories", { body: { name: "Upper" } })
    const p = await t.req("POST", "/v1/products", { body: { familyId: familyId.toUpperCase(), name: "Upper", categoryIds: [category.json.id.toUpperCase()] } })
    expect(p.status).toBe(201)
    expect(p.json.familyId).toBe(familyId)
    const got = await t.req("GET", `/v1/products/${p.json.id.toUpperCase()}`)
    expect([got.status, got.json.id]).toEqual([200, p.json.id])
    const listed = await t.req("GET", `/v1/products?categoryId=${category.json.id.toUpperCase()}`)
    expect(listed.json.data.map((x: { id: string; categoryIds: Array<string> }) => [x.id, x.categoryIds])).toEqual([[p.json.id, [category.json.id]]])
  })
})

describe("request limits", () => {
  it("takes positions the databases store in 32 bits, and refuses larger ones with 422", async () => {
    expect((await t.req("POST", "/v1/categories", { body: { name: "Top", position: 2147483647 } })).status).toBe(201)
    for (const position of [2147483648, -2147483649, 9007199254740991]) {
      const r = await t.req("POST", "/v1/categories", { body: { name: `Far ${position}`, position } })
      expect([r.status, r.json.error.details.issues[0].path]).toEqual([422, ["position"]])
    }
    const group = await t.req("POST", "/v1/attribute-groups", { body: { code: "far", label: { en: "Far" }, position: 2147483648 } })
    expect(group.status).toBe(422)
  })

  it("refuses a variant position below 0 or past 32 bits with the one range variants take", async () => {
    const product = await t.req("POST", "/v1/products", { body: { familyId, name: "Positioned" } })
    for (const position of [-1, 2147483648, 1.5]) {
      const r = await t.req("POST", `/v1/products/${product.json.id}/variants`, { body: { sku: `AT-${position}`, position } })
      expect([position, r.status, r.json.error.details.issues]).toEqual([
        position, 422, [{ path: ["position"], message: "must be an integer from 0 to 2147483647", code: "invalid" }]
      ])
    }
  })

  it("takes 500 ids in one query string, bounds q and tag, and answers an oversized request line with the envelope", async () => {
    const ids = Array.from({ length: 500 }, () => uuid()).join(",")
    const many = await t.req("GET", `/v1/products?ids=${ids}&withTotal=true`)
    expect([many.status, many.json.total]).toEqual([200, 0])
    const tooMany = await t.req("GET", `/v1/products?ids=${ids},${uuid()}`)
    expect([tooMany.status, tooMany.json.error.code]).toEqual([422, "validation_failed"])
    const longSearch = await t.req("GET", `/v1/products?q=${"a".repeat(201)}`)
    expect([longSearch.status, longSearch.json.error.details.issues[0].path]).toEqual([422, ["q"]])
    const manyTags = await t.req("GET", `/v1/products/facets?${Array.from({ length: 51 }, (_, i) => `tag=t${i}`).join("&")}`)
    expect([manyTags.status, manyTags.json.error.details.issues[0].path]).toEqual([422, ["tag"]])
    // Values naming one tag count once: these 51 name 50.
    const oneTagTwice = await t.req("GET", `/v1/products/facets?${[...Array.from({ length: 50 }, (_, i) => `tag=t${i}`), "tag=T0"].join("&")}`)
    expect([oneTagTwice.status, oneTagTwice.json.total]).toEqual([200, 0])
    const huge = await t.req("GET", `/v1/products?slug=${"a".repeat(70_000)}`)
    expect([huge.status, huge.json.error.code]).toEqual([431, "header_too_large"])
  })

  it("counts a tag's length in characters, not UTF-16 units", async () => {
    const astral = "\u{1D41A}"
    const long = await t.req("POST", "/v1/products", { body: { familyId, name: "Astral", tags: [astral.repeat(80)] } })
    expect([long.status, Array.from(long.json.tags[0]).length]).toEqual([201, 60])
    const tooLong = await t.req("POST", "/v1/products", { body: { familyId, name: "Astral", tags: [astral.repeat(81)] } })
    expect([tooLong.status, tooLong.json.error.code]).toEqual([422, "validation_failed"])
  })
})

describe("products over HTTP", () => {
  it("answers resolvedAttributes only when a locale or channel is asked, and 204 on delete", async () => {
    const p = await t.req("POST", "/v1/products", { body: { familyId, name: "Resolved" } })
    expect(p.status).toBe(201)
    expect("resolvedAttributes" in (await t.req("GET", `/v1/products/${p.json.id}`)).json).toBe(false)
    expect((await t.req("GET", `/v1/products/${p.json.id}?locale=en`)).json.resolvedAttributes).toEqual({})
    const d = await t.req("DELETE", `/v1/products/${p.json.id}`)
    expect(d.status).toBe(204)
    expect((await t.req("GET", `/v1/products/${p.json.id}`)).status).toBe(404)
  })

  it("reports each bulk item with the error envelope's object, and refuses more than 500 items", async () => {
    const r = await t.req("POST", "/v1/products/bulk", {
      body: { items: [{ op: "create", familyId, name: "Ok" }, { op: "delete", id: uuid() }, { op: "create", familyId }] }
    })
    expect(r.status).toBe(200)
    expect(r.json.results[0]).toEqual({ ok: true, index: 0, id: expect.any(String) })
    expect(r.json.results[1]).toEqual({ ok: false, index: 1, error: { code: "not_found", message: expect.any(String) } })
    expect(r.json.results[2].error.code).toBe("validation_failed")
    expect(r.json.results[2].error.details.issues[0].path).toEqual(["name"])
    const tooMany = await t.req("POST", "/v1/products/bulk", { body: { items: Array.from({ length: 501 }, () => ({ op: "delete", id: uuid() })) } })
    expect(tooMany.status).toBe(422)
    expect((await t.req("POST", "/v1/products/bulk", { body: [] })).status).toBe(422)
  })

  it("answers facets with every dimension, capped by facetLimit", async () => {
    for (const tag of ["x1", "x2", "x3"]) await t.req("POST", "/v1/products", { body: { familyId, name: tag, tags: [tag] } })
    await t.req("POST", "/v1/products", { body: { familyId, name: "archived", status: "archived" } })
    const r = await t.req("GET", "/v1/products/facets?facetLimit=1&sortBy=name")
    expect(r.status).toBe(200)
    expect(Object.keys(r.json).sort()).toEqual(["brands", "categories", "connectors", "families", "statuses", "tags", "total"])
    expect(r.json.tags).toHaveLength(1)
    expect(r.json.statuses).toHaveLength(1)
    const all = await t.req("GET", "/v1/products/facets")
    expect(all.json.statuses.length).toBeGreaterThan(1)
    expect((await t.req("GET", "/v1/products/facets?facetLimit=501")).status).toBe(422)
  })

  it("refuses on facets the sort parameters the list refuses, so one query string answers both or neither", async () => {
    const text = await t.req("POST", "/v1/attributes", { body: { code: "facet_sort_text", label: { en: "Text" }, type: "text" } })
    expect(text.status).toBe(201)
    for (const q of ["sortAttribute=no_such_code", "sortBy=attribute", "sortBy=name&sortAttribute=facet_sort_text", "sortBy=attribute&sortAttribute=facet_sort_text"]) {
      const list = await t.req("GET", `/v1/products?${q}`)
      const facets = await t.req("GET", `/v1/products/facets?${q}`)
      expect([q, facets.status, facets.json.error?.details.issues]).toEqual([q, 422, list.json.error.details.issues])
    }
  })
})

describe("categories and brands over HTTP", () => {
  it("caps q of the category and brand lists as the product list does", async () => {
    const product = await t.req("GET", `/v1/products?q=${"a".repeat(201)}`)
    for (const path of ["/v1/categories", "/v1/brands"]) {
      expect((await t.req("GET", `${path}?q=${"a".repeat(200)}`)).status).toBe(200)
      const r = await t.req("GET", `${path}?q=${"a".repeat(201)}`)
      expect([path, r.status, r.json.error]).toEqual([path, 422, product.json.error])
    }
  })

  it("refuses unknown category list parameters naming the key, and a brand name taken", async () => {
    for (const path of ["/v1/categories?sort=name", "/v1/brands?sort=name"]) {
      const r = await t.req("GET", path)
      expect([path, r.status, r.json.error.details.issues[0].path]).toEqual([path, 422, ["sort"]])
    }
    const c = await t.req("POST", "/v1/categories", { body: { name: "Winter Boots" } })
    expect(c.json).toMatchObject({ slug: "winter-boots", parentId: null, position: 0, attributes: {} })
    expect((await t.req("GET", "/v1/categories?q=winter")).json.map((x: { id: string }) => x.id)).toEqual([c.json.id])
    await t.req("POST", "/v1/brands", { body: { name: "Acme" } })
    const clash = await t.req("POST", "/v1/brands", { body: { name: "acme" } })
    expect(clash.status).toBe(409)
    expect(clash.json.error.code).toBe("conflict")
  })

  it("refuses a category or brand name of spaces or invisible characters alone, on create and update", async () => {
    const brand = (await t.req("POST", "/v1/brands", { body: { name: "Blank Probe" } })).json
    const category = (await t.req("POST", "/v1/categories", { body: { name: "Blank Probe" } })).json
    const refused = [
      await t.req("POST", "/v1/brands", { body: { name: "   " } }),
      await t.req("POST", "/v1/categories", { body: { name: "\u00ad \u200b" } }),
      await t.req("PATCH", `/v1/brands/${brand.id}`, { body: { name: "\t" } }),
      await t.req("PATCH", `/v1/categories/${category.id}`, { body: { name: "  " } })
    ]
    for (const r of refused) {
      expect([r.status, r.json.error.code, r.json.error.details.issues.map((i: { path: unknown }) => i.path)]).toEqual([422, "validation_failed", [["name"]]])
    }
    expect((await t.req("POST", "/v1/brands", { body: { name: " A " } })).status).toBe(201)
  })

  it("refuses a product, variant or modifier name or a page title of spaces or invisible characters alone, and keeps others as sent", async () => {
    const product = (await t.req("POST", "/v1/products", { body: { familyId, name: " Blank probe " } })).json
    expect(product.name).toBe(" Blank probe ")
    const variant = (await t.req("POST", `/v1/products/${product.id}/variants`, { body: { sku: "BLANK-1" } })).json
    const modifier = (await t.req("POST", "/v1/modifiers", { body: { code: "blank_probe", name: "Blank probe", type: "text" } })).json
    const pageFamily = (await t.req("POST", "/v1/attribute-families", { body: { code: "blank_page", label: { en: "Page" }, entityKind: "content" } })).json
    const page = (await t.req("POST", "/v1/content-pages", { body: { familyId: pageFamily.id, title: "Blank probe" } })).json
    const refused: Array<[{ status: number; json: any }, string]> = [
      [await t.req("POST", "/v1/products", { body: { familyId, name: "   " } }), "name"],
      [await t.req("PATCH", `/v1/products/${product.id}`, { body: { name: "\u200b" } }), "name"],
      [await t.req("POST", `/v1/products/${product.id}/variants`, { body: { sku: "BLANK-2", name: "\u00a0" } }), "name"],
      [await t.req("PATCH", `/v1/products/${product.id}/variants/${variant.id}`, { body: { name: "\t" } }), "name"],
      [await t.req("POST", "/v1/modifiers", { body: { code: "blank_two", name: " ", type: "text" } }), "name"],
      [await t.req("PATCH", `/v1/modifiers/${modifier.id}`, { body: { name: "\u00ad" } }), "name"],
      [await t.req("POST", "/v1/content-pages", { body: { familyId: pageFamily.id, title: "\n" } }), "title"],
      [await t.req("PATCH", `/v1/content-pages/${page.id}`, { body: { title: "  " } }), "title"]
    ]
    for (const [r, field] of refused) {
      expect([r.status, r.json.error.code, r.json.error.details.issues.map((i: { path: unknown }) => i.path)]).toEqual([422, "validation_failed", [[field]]])
    }
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items: [{ op: "create", familyId, name: " " }] } })
    expect(bulk.json.results[0].ok).toBe(false)
  })
})
