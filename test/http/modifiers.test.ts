import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

describe("modifiers over HTTP", () => {
  it("refuses an option label keyed `__proto__` instead of answering success without it", async () => {
    const t = await host.tenant()
    const option = (label: string) => `{"code":"wrap","name":"Wrap","type":"select","options":[{"value":"gift","label":${label}}]}`
    const headers = { "content-type": "application/json" }
    const refused = await t.req("POST", "/v1/modifiers", { rawBody: option('{"__proto__":"x","en":"Gift"}'), headers })
    expect(refused.status).toBe(422)
    expect(refused.json.error.details.issues.map((i: { path: unknown }) => i.path)).toContainEqual(["options", 0, "label", "__proto__"])
    const kept = await t.req("POST", "/v1/modifiers", { rawBody: option('{"toString":"x","en":"Gift"}'), headers })
    expect([kept.status, kept.json.options[0].label]).toEqual([201, { toString: "x", en: "Gift" }])
  })

  it("refuses an option label naming one locale twice in two cases, on create and on update", async () => {
    const t = await host.tenant()
    const options = (label: unknown) => [{ value: "gift", label }]
    const twice = { "en-US": "Gift", "en-us": "Present" }
    const refused = await t.req("POST", "/v1/modifiers", { body: { code: "wrap", name: "Wrap", type: "select", options: options(twice) } })
    expect(refused.status).toBe(422)
    expect(refused.json.error.details.issues).toEqual([
      { path: ["options", 0, "label", "en-us"], message: "names the locale en-us again", code: "invalid" }
    ])
    const created = await t.req("POST", "/v1/modifiers", { body: { code: "wrap", name: "Wrap", type: "select", options: options({ "en-US": "Gift" }) } })
    expect(created.status).toBe(201)
    const patched = await t.req("PATCH", `/v1/modifiers/${created.json.id}`, { body: { options: options(twice) } })
    expect(patched.status).toBe(422)
    expect((await t.req("GET", `/v1/modifiers/${created.json.id}`)).json.options).toEqual(options({ "en-US": "Gift" }))
  })
  it("names a locale given twice, and refuses a key too long to be one", async () => {
    const t = await host.tenant()
    const longest = "l".repeat(35)
    const twice = await t.req("POST", "/v1/modifiers", { body: { code: "wrap", name: "Wrap", type: "select", options: [{ value: "gift", label: { [longest]: "a", [longest.toUpperCase()]: "b" } }] } })
    expect([twice.status, twice.json.error.details.issues]).toEqual([422, [
      { path: ["options", 0, "label", longest.toUpperCase()], message: `names the locale ${longest} again`, code: "invalid" }
    ]])
    const long = "l".repeat(3_000)
    const r = await t.req("POST", "/v1/modifiers", { body: { code: "wrap", name: "Wrap", type: "select", options: [{ value: "gift", label: { [long]: "a" } }] } })
    expect([r.status, r.json.error.details.issues]).toEqual([422, [
      { path: ["options", 0, "label", long], message: "must name a locale of at most 35 characters", code: "invalid" }
    ]])
  })

  it("creates (201), refuses a duplicate code (409) and bad input (422), deletes (204)", async () => {
    const t = await host.tenant()
    const body = { code: "engraving", name: "Engraving", type: "text" }
    const created = await t.req("POST", "/v1/modifiers", { body })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ ...body, options: [] })
    expect((await t.req("POST", "/v1/modifiers", { body })).status).toBe(409)
    expect((await t.req("POST", "/v1/modifiers", { body: { code: "Bad Code", name: "x", type: "text" } })).status).toBe(422)
    expect((await t.req("POST", "/v1/modifiers", { body: { code: "x", name: "x", type: "colour" } })).status).toBe(422)
    const option = (currency: string) => ({ value: "gift", priceAdjustment: { amount_cents: 250, currency } })
    const unknownCurrency = await t.req("POST", "/v1/modifiers", { body: { code: "box", name: "Box", type: "select", options: [option("ZZZ")] } })
    expect([unknownCurrency.status, unknownCurrency.json.error.message]).toEqual([422, expect.stringContaining("ISO 4217")])
    // Said as money values say it, whether the code is no code at all or one ISO 4217 does not list; the path names the option.
    for (const currency of ["ZZZ", "eur"]) {
      const refused = await t.req("POST", "/v1/modifiers", { body: { code: "box", name: "Box", type: "select", options: [{ ...option(currency), value: "v".repeat(3_000) }] } })
      expect([currency, refused.json.error.details.issues[0].path, refused.json.error.details.issues[0].message])
        .toEqual([currency, ["options", 0, "priceAdjustment", "currency"], "must be an ISO 4217 code such as EUR"])
    }
    const optionFaults = await t.req("POST", "/v1/modifiers", {
      body: { code: "box", name: "Box", type: "select", options: [option("CHF"), { value: "gift" }, option("ZZZ")] }
    })
    expect(optionFaults.json.error.details.issues.map((i: { path: unknown }) => i.path)).toEqual([
      ["options", 1, "value"],
      ["options", 2, "value"],
      ["options", 2, "priceAdjustment", "currency"]
    ])
    const misspelt = await t.req("POST", "/v1/modifiers", {
      body: { code: "box", name: "Box", type: "select", options: [{ value: "gift", priceAdjustment: { amount_cents: 250, currency: "CHF", curency: "EUR" } }] }
    })
    expect([misspelt.status, misspelt.json.error.details.issues[0].path]).toEqual([422, ["options", 0, "priceAdjustment", "curency"]])
    expect((await t.req("POST", "/v1/modifiers", { body: { code: "box", name: "Box", type: "select", options: [option("CHF")] } })).status).toBe(201)
    expect((await t.req("GET", "/v1/modifiers")).json.map((m: { code: string }) => m.code).sort()).toEqual(["box", "engraving"])
    const patched = await t.req("PATCH", `/v1/modifiers/${created.json.id}`, { body: { name: "Laser engraving" } })
    expect(patched.json.name).toBe("Laser engraving")
    const box = (await t.req("GET", "/v1/modifiers")).json.find((m: { code: string }) => m.code === "box")
    const clash = await t.req("PATCH", `/v1/modifiers/${box.id}`, { body: { code: "engraving" } })
    expect([clash.status, clash.json.error.code]).toEqual([409, "conflict"])
    const recoded = await t.req("PATCH", `/v1/modifiers/${box.id}`, { body: { code: "gift_box" } })
    expect([recoded.status, recoded.json.code]).toEqual([200, "gift_box"])
    const events = (await t.req("GET", `/v1/audit-log?entity_id=${box.id}&action=updated`)).json.data
    expect(events.map((e: { payload: unknown }) => e.payload)).toEqual([{ changed_fields: ["code"] }])
    const removed = await t.req("DELETE", `/v1/modifiers/${created.json.id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    expect((await t.req("GET", `/v1/modifiers/${created.json.id}`)).status).toBe(404)
  })
})
