import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant, uuid } from "../support/TestHost.js"

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
      expect([raw, r.status, r.json.error.details.issues.map((i: { path: unknown }) => i.path)]).toEqual([
        raw, 422, [["attributes", "price", 0, "value", "amount_cents"]]
      ])
    }
    const modifier = (cents: number) =>
      t.req("POST", "/v1/modifiers", { body: { code: `gift_${cents < 0 ? "m" : "p"}${Math.abs(cents) % 1000}`, name: "Gift", type: "select", options: [{ value: "box", priceAdjustment: { amount_cents: cents, currency: "EUR" } }] } })
    expect((await modifier(-most)).status).toBe(201)
    const over = await modifier(most + 1)
    expect([over.status, over.json.error.details.issues[0].path]).toEqual([422, ["options", 0, "priceAdjustment", "amount_cents"]])
  })
})
