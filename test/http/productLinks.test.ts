import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

const product = async (t: TestTenant, familyId: string, name: string) => {
  const r = await t.req("POST", "/v1/products", { body: { familyId, name } })
  expect(r.status).toBe(201)
  return r.json.id as string
}

const family = async (t: TestTenant) => {
  const size = await t.req("POST", "/v1/attributes", { body: { code: "size", label: { en: "Size" }, type: "text", isVariantAxis: true } })
  const f = await t.req("POST", "/v1/attribute-families", { body: { code: "apparel", label: { en: "Apparel" } } })
  await t.req("POST", `/v1/attribute-families/${f.json.id}/attributes`, { body: { attributeId: size.json.id } })
  return f.json.id as string
}

const size = (value: string) => ({ size: [{ locale: null, channel: null, value }] })

describe("product variants, relationships and modifiers over HTTP", () => {
  it("variants: 201, a page of them, 409 on a taken SKU or combination, 422 without an axis, 204 on delete", async () => {
    const t = await host.tenant()
    const familyId = await family(t)
    const shirt = await product(t, familyId, "Shirt")
    const created = await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "S-1", name: "Small", attributes: size("S") } })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ productId: shirt, sku: "S-1", name: "Small", status: "draft", position: 0 })
    expect((await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "S-1", attributes: size("M") } })).status).toBe(409)
    expect((await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "S-2", attributes: size("S") } })).status).toBe(409)
    const noAxis = await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "S-2" } })
    expect([noAxis.status, noAxis.json.error.details.issues[0].path]).toEqual([422, ["attributes", "size"]])
    expect((await t.req("POST", `/v1/products/${shirt}/variants`, { body: { name: "no sku" } })).status).toBe(422)
    const longest = await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "界".repeat(254) + "😀", attributes: size("L") } })
    expect([longest.status, longest.json.name]).toEqual([201, "界".repeat(254) + "😀"])
    const tooLong = await t.req("POST", `/v1/products/${shirt}/variants`, { body: { sku: "界".repeat(256), attributes: size("XL") } })
    expect([tooLong.status, tooLong.json.error.details.issues[0].path]).toEqual([422, ["sku"]])
    expect((await t.req("DELETE", `/v1/products/${shirt}/variants/${longest.json.id}`)).status).toBe(204)
    const list = await t.req("GET", `/v1/products/${shirt}/variants?limit=5`)
    expect(list.json).toMatchObject({ limit: 5, offset: 0, hasMore: false })
    expect(list.json.data.map((v: { id: string }) => v.id)).toEqual([created.json.id])
    const patched = await t.req("PATCH", `/v1/products/${shirt}/variants/${created.json.id}`, { body: { status: "active" } })
    expect(patched.json.status).toBe("active")
    expect((await t.req("GET", `/v1/products/${crypto.randomUUID()}/variants`)).status).toBe(404)
    expect((await t.req("DELETE", `/v1/products/${shirt}/variants/${created.json.id}`)).status).toBe(204)
    expect((await t.req("GET", `/v1/products/${shirt}/variants/${created.json.id}`)).status).toBe(404)
  })

  it("relationships: 201 with an id, 422 for an unknown type, 404 for another organization's product, 204 on delete", async () => {
    const t = await host.tenant()
    const other = await host.tenant()
    const familyId = await family(t)
    const [a, b] = [await product(t, familyId, "A"), await product(t, familyId, "B")]
    const theirs = await product(other, await family(other), "Theirs")
    const rel = await t.req("POST", `/v1/products/${a}/relationships`, { body: { relatedProductId: b, type: "cross_sell" } })
    expect(rel.status).toBe(201)
    expect(rel.json).toMatchObject({ productId: a, relatedProductId: b, type: "cross_sell" })
    expect((await t.req("POST", `/v1/products/${a}/relationships`, { body: { relatedProductId: b, type: "cross_sell" } })).status).toBe(409)
    expect((await t.req("POST", `/v1/products/${a}/relationships`, { body: { relatedProductId: b, type: "sibling" } })).status).toBe(422)
    const foreign = await t.req("POST", `/v1/products/${a}/relationships`, { body: { relatedProductId: theirs, type: "related" } })
    expect([foreign.status, foreign.json.error.code]).toEqual([404, "not_found"])
    expect((await t.req("GET", `/v1/products/${a}/relationships`)).json.map((r: { id: string }) => r.id)).toEqual([rel.json.id])
    expect((await t.req("DELETE", `/v1/products/${a}/relationships/${rel.json.id}`)).status).toBe(204)
    expect((await t.req("GET", `/v1/products/${a}/relationships`)).json).toEqual([])
  })

  it("relationships: a plain array with every link, or the page that limit and offset ask for", async () => {
    const t = await host.tenant()
    const familyId = await family(t)
    const [a, b, c] = [await product(t, familyId, "A"), await product(t, familyId, "B"), await product(t, familyId, "C")]
    const ids: Array<string> = []
    for (const [to, type] of [[b, "related"], [c, "related"], [b, "upsell"]] as const) {
      ids.push((await t.req("POST", `/v1/products/${a}/relationships`, { body: { relatedProductId: to, type } })).json.id)
    }
    const listed = async (query: string) => (await t.req("GET", `/v1/products/${a}/relationships${query}`)).json.map((r: { id: string }) => r.id)
    expect(await listed("")).toEqual(ids)
    expect(await listed("?limit=2")).toEqual(ids.slice(0, 2))
    expect(await listed("?limit=2&offset=2")).toEqual(ids.slice(2))
    expect(await listed("?offset=1")).toEqual(ids.slice(1))
    for (const [query, key] of [["?limit=0", "limit"], ["?limit=201", "limit"], ["?offset=-1", "offset"], ["?size=2", "size"]]) {
      const refused = await t.req("GET", `/v1/products/${a}/relationships${query}`)
      expect([refused.status, refused.json.error.details.issues[0].path]).toEqual([422, [key]])
    }
  })

  it("modifiers: attach 201, again 409, list, detach 204, detach again 404", async () => {
    const t = await host.tenant()
    const mug = await product(t, await family(t), "Mug")
    const modifier = await t.req("POST", "/v1/modifiers", { body: { code: "engraving", name: "Engraving", type: "text" } })
    const attached = await t.req("POST", `/v1/products/${mug}/modifiers`, { body: { modifierId: modifier.json.id } })
    expect(attached.status).toBe(201)
    expect(attached.json).toMatchObject({ id: modifier.json.id, modifierId: modifier.json.id, productId: mug, code: "engraving" })
    const again = await t.req("POST", `/v1/products/${mug}/modifiers`, { body: { modifierId: modifier.json.id } })
    expect([again.status, again.json.error.code]).toEqual([409, "conflict"])
    expect((await t.req("POST", `/v1/products/${mug}/modifiers`, { body: { modifierId: crypto.randomUUID() } })).status).toBe(404)
    expect((await t.req("GET", `/v1/products/${mug}/modifiers`)).json.map((m: { id: string }) => m.id)).toEqual([modifier.json.id])
    expect((await t.req("DELETE", `/v1/products/${mug}/modifiers/${modifier.json.id}`)).status).toBe(204)
    expect((await t.req("DELETE", `/v1/products/${mug}/modifiers/${modifier.json.id}`)).status).toBe(404)
  })
})
