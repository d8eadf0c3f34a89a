import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

let host: TestHost
let t: TestTenant
let familyId: string

beforeAll(async () => {
  host = await startTestHost()
  t = await host.tenant()
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: "codes", label: { en: "Codes" } } })
  familyId = family.json.id
  for (const [code, pattern] of [["sku", "^[A-Z]{3}-\\d+$"], ["evil", "^(a+)+$"]] as const) {
    const attribute = await t.req("POST", "/v1/attributes", { body: { code, label: { en: code }, type: "text", validation: { pattern } } })
    expect((await t.req("POST", `/v1/attribute-families/${familyId}/attributes`, { body: { attributeId: attribute.json.id } })).status).toBe(201)
  }
})
afterAll(() => host.close())

const value = (v: unknown) => [{ locale: null, channel: null, value: v }]
// Backtracking `^(a+)+$` over this takes longer than anyone would wait: 2^40 steps.
const CATASTROPHIC = `${"a".repeat(40)}!`

describe("attribute patterns", () => {
  it("checks values against a pattern", async () => {
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "Ok", attributes: { sku: value("ABC-12") } } })).status).toBe(201)
    const bad = await t.req("POST", "/v1/products", { body: { familyId, name: "Bad", attributes: { sku: value("abc") } } })
    expect([bad.status, bad.json.error.details.issues[0].code]).toEqual([422, "invalid_pattern"])
  })

  it("stops a pattern that backtracks for ever, answers 422, and keeps serving meanwhile", async () => {
    const slow = t.req("POST", "/v1/products", { body: { familyId, name: "Slow", attributes: { evil: value(CATASTROPHIC) } } })
    const health = host.request("GET", "/healthz")
    const [answer, probe] = await Promise.all([slow, health])
    expect([answer.status, answer.json.error.details.issues]).toEqual([422, [{
      path: ["attributes"],
      message: "checking the values against their attributes' patterns took over 250 ms: simplify the pattern",
      code: "pattern_too_slow"
    }]])
    expect(probe.status).toBe(200)
    expect((await t.req("GET", "/v1/products?q=Slow")).json.data).toEqual([])
  })

  it("spends one allowance on a whole bulk request: once spent, later items with patterns fail too", async () => {
    const slow = Array.from({ length: 3 }, (_, i) => ({ op: "create", familyId, name: `Slow ${i}`, attributes: { evil: value(CATASTROPHIC) } }))
    const items = [...slow, { op: "create", familyId, name: "Fine", attributes: { sku: value("ABC-1") } }, { op: "create", familyId, name: "Plain" }]
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items } })
    expect(bulk.json.results.map((r: { ok: boolean; error?: { details: { issues: Array<{ code: string }> } } }) => [r.ok, r.error?.details.issues[0]?.code]))
      .toEqual([[false, "pattern_too_slow"], [false, "pattern_too_slow"], [false, "pattern_too_slow"], [false, "pattern_too_slow"], [true, undefined]])
  })

  it("checks an attribute's default value under the same limit", async () => {
    const r = await t.req("POST", "/v1/attributes", { body: { code: "evil_default", label: { en: "x" }, type: "text", validation: { pattern: "^(a+)+$" }, defaultValue: CATASTROPHIC } })
    expect([r.status, r.json.error.details.issues[0].code]).toEqual([422, "pattern_too_slow"])
  })

  it("takes a pattern with escapes Unicode mode refuses, as the common dialects read it", async () => {
    const attribute = await t.req("POST", "/v1/attributes", { body: { code: "part", label: {}, type: "text", validation: { pattern: "^[A-Z]{3}\\-\\d{4}\\@x$" } } })
    expect((await t.req("POST", `/v1/attribute-families/${familyId}/attributes`, { body: { attributeId: attribute.json.id } })).status).toBe(201)
    const write = (v: string) => t.req("POST", "/v1/products", { body: { familyId, name: `Part ${v}`, attributes: { part: value(v) } } })
    const bad = await write("not a part")
    expect([bad.status, bad.json.error.details.issues]).toEqual([422, [{
      path: ["attributes", "part", 0, "value"],
      message: "must match ^[A-Z]{3}\\-\\d{4}\\@x$",
      code: "invalid_pattern"
    }]])
    expect((await write("ABC-1234@x")).status).toBe(201)
  })

  it("refuses a pattern that is no regular expression, on create and on update, and keeps the one stored", async () => {
    const refused = { path: ["validation", "pattern"], message: "is not a regular expression: ([a-z]", code: "invalid_pattern" }
    const created = await t.req("POST", "/v1/attributes", { body: { code: "broken", label: {}, type: "text", validation: { pattern: "([a-z]" } } })
    expect([created.status, created.json.error.details.issues]).toEqual([422, [refused]])
    const sku = (await t.req("GET", "/v1/attributes")).json.find((a: { code: string }) => a.code === "sku")
    const updated = await t.req("PATCH", `/v1/attributes/${sku.id}`, { body: { validation: { pattern: "([a-z]" } } })
    expect([updated.status, updated.json.error.details.issues]).toEqual([422, [refused]])
    expect((await t.req("GET", `/v1/attributes/${sku.id}`)).json.validation).toEqual({ pattern: "^[A-Z]{3}-\\d+$" })
  })
})
