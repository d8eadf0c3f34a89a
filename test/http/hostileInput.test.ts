import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

/** A tenant with a product family declaring one multiselect attribute, and a product of it. */
const catalog = async (t: TestTenant) => {
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: "hostile", label: {} } })
  const colours = await t.req("POST", "/v1/attributes", { body: { code: "colours", label: {}, type: "multiselect" } })
  await t.req("POST", `/v1/attribute-families/${family.json.id}/attributes`, { body: { attributeId: colours.json.id } })
  const product = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Target" } })
  return { familyId: family.json.id as string, productId: product.json.id as string }
}

/** `n` attribute codes no family declares, each with an empty list of entries. */
const undeclaredCodes = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, []]))

describe("a flood of bad values", () => {
  // Some hundred thousand issues, each passed as one argument of a call, overflowed the stack: a 500.
  it("refuses 200,000 undeclared attribute codes with 422 in the envelope, on create, update and bulk", async () => {
    const t = await host.tenant()
    const { familyId, productId } = await catalog(t)
    const attributes = undeclaredCodes(200_000)
    const details = {
      issues: Array.from({ length: 100 }, (_, i) => ({ path: ["attributes", `c${i}`], message: `attribute c${i} is not declared by the family`, code: "unknown_attribute" })),
      truncated: true
    }
    const created = await t.req("POST", "/v1/products", { body: { familyId, name: "Flood", attributes } })
    expect([created.status, created.json.error.code, created.json.error.details]).toEqual([422, "validation_failed", details])
    const updated = await t.req("PATCH", `/v1/products/${productId}`, { body: { attributes } })
    expect([updated.status, updated.json.error.code, updated.json.error.details]).toEqual([422, "validation_failed", details])
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items: [{ op: "create", familyId, name: "Flood", attributes }] } })
    expect([bulk.status, bulk.json.results[0].ok, bulk.json.results[0].error.code]).toEqual([200, false, "validation_failed"])
    expect(bulk.json.results[0].error.details).toEqual(details)
  })

  it("refuses a multiselect value of 200,000 numbers with 422 in the envelope", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const value = Array.from({ length: 200_000 }, () => 5)
    const r = await t.req("POST", "/v1/products", { body: { familyId, name: "Flood", attributes: { colours: [{ locale: null, channel: null, value }] } } })
    expect([r.status, r.json.error.code, r.json.error.details.truncated]).toEqual([422, "validation_failed", true])
    expect(r.json.error.details.issues).toEqual(
      Array.from({ length: 100 }, (_, i) => ({ path: ["attributes", "colours", 0, "value", i], message: expect.any(String), code: expect.any(String) }))
    )
  })

  // Formatting every issue of a body of a million bad values took 47 s and 1.8 GB, and answered tens of megabytes.
  it("lists the first 100 issues of a body, in order, marked truncated", async () => {
    const t = await host.tenant()
    const r = await t.req("POST", "/v1/modifiers", { body: { code: "flood", name: "Flood", type: "select", options: Array.from({ length: 1_000 }, () => 5) } })
    expect(r.status).toBe(422)
    expect(r.json.error.details).toEqual({
      issues: Array.from({ length: 100 }, (_, i) => ({ path: ["options", i], message: "Expected an object, actual 5", code: "invalid_type" })),
      truncated: true
    })
    expect(r.json.error.message).toMatch(/^options\.0: Expected an object, actual 5; .*; and more issues not listed$/)
  })

  it("keeps the first 100 issues in the order the endpoint defines its fields, not the order of the body's keys", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const r = await t.req("POST", "/v1/products", {
      body: { categoryIds: Array.from({ length: 100 }, () => "x"), tags: Array.from({ length: 50 }, () => 5), name: "Order", familyId }
    })
    expect([r.status, r.json.error.details.truncated]).toEqual([422, true])
    const fields = r.json.error.details.issues.map((i: { path: ReadonlyArray<unknown> }) => i.path[0])
    expect(fields).toEqual([...Array.from({ length: 50 }, () => "tags"), ...Array.from({ length: 50 }, () => "categoryIds")])
  })

  // Each of five million tags failed before their number was looked at: 13 s and 2 GB.
  it("refuses a list or a map over its bound for its size alone, its items unread", async () => {
    const t = await host.tenant()
    const { familyId, productId } = await catalog(t)
    const tags = Array.from({ length: 1_000_000 }, () => 5)
    const tooMany = (path: string, message: string) => ({ issues: [{ path: [path], message, code: "invalid" }] })
    const created = await t.req("POST", "/v1/products", { body: { familyId, name: "Flood", tags, categoryIds: tags } })
    expect([created.status, created.json.error.details]).toEqual([422, {
      issues: [...tooMany("tags", "at most 50 tags").issues, ...tooMany("categoryIds", "at most 100 categories").issues]
    }])
    const updated = await t.req("PATCH", `/v1/products/${productId}`, { body: { tags } })
    expect([updated.status, updated.json.error.details]).toEqual([422, tooMany("tags", "at most 50 tags")])
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items: tags } })
    expect([bulk.status, bulk.json.error.details]).toEqual([422, tooMany("items", "at most 500 items")])
    const item = await t.req("POST", "/v1/products/bulk", { body: { items: [{ op: "create", familyId, name: "Flood", tags }] } })
    expect([item.status, item.json.results[0].error.details]).toEqual([200, tooMany("tags", "at most 50 tags")])
    const options = await t.req("POST", "/v1/modifiers", { body: { code: "flood", name: "Flood", type: "select", options: tags } })
    expect([options.status, options.json.error.details]).toEqual([422, tooMany("options", "at most 1000 options")])
    const label = Object.fromEntries(Array.from({ length: 500_000 }, (_, i) => [`l${i}`, 5]))
    const group = await t.req("POST", "/v1/attribute-groups", { body: { code: "flood", label } })
    expect([group.status, group.json.error.details]).toEqual([422, tooMany("label", "at most 1000 locales")])
  })

  it("checks every item of a list within its bound", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const r = await t.req("POST", "/v1/products", { body: { familyId, name: "Few", tags: ["fine", 5, "", 6] } })
    expect([r.status, r.json.error.details.issues]).toEqual([422, [
      { path: ["tags", 1], message: "Expected string, actual 5", code: "invalid_type" },
      { path: ["tags", 2], message: "a tag must not be empty", code: "invalid" },
      { path: ["tags", 3], message: "Expected string, actual 6", code: "invalid_type" }
    ]])
  })

  // The message held the refused value whole: a 9 MB string where a list belongs answered 18 MB.
  it("shows only the start of a long value it refuses", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const r = await t.req("POST", "/v1/products", { body: { familyId, name: ["x".repeat(1_000_000)], tags: "y".repeat(1_000_000) } })
    expect(r.status).toBe(422)
    expect(r.json.error.details.issues).toEqual([
      { path: ["name"], message: `Expected string, actual ["${"x".repeat(200)}…"]`, code: "invalid_type" },
      { path: ["tags"], message: `Expected an array, actual "${"y".repeat(200)}…"`, code: "invalid_type" }
    ])
  })

  it("names a long code, key or option by its start in messages, and whole in the path", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const long = "k".repeat(5_000)
    const r = await t.req("POST", "/v1/products", {
      body: { familyId, name: "Long", attributes: { [long]: [], colours: [{ locale: null, channel: null, value: [long, long], [long]: 1 }] } }
    })
    const start = `${"k".repeat(200)}…`
    expect([r.status, r.json.error.details.issues]).toEqual([422, [
      { path: ["attributes", long], message: `attribute ${start} is not declared by the family`, code: "unknown_attribute" },
      { path: ["attributes", "colours", 0, long], message: `unknown key ${start}`, code: "unrecognized_key" }
    ]])
    // The summary shows each path step by its start too.
    expect(r.json.error.message).toBe(`attributes.${start}: attribute ${start} is not declared by the family; attributes.colours.0.${start}: unknown key ${start}`)
    const twice = await t.req("POST", "/v1/products", { body: { familyId, name: "Long", attributes: { colours: [{ locale: null, channel: null, value: [long, long] }] } } })
    expect(twice.json.error.details.issues).toEqual([
      { path: ["attributes", "colours", 0, "value", 1], message: `option ${start} is already selected`, code: "duplicate_entry" }
    ])
  })

  it("lists every issue, without the mark, where there are 100 or fewer", async () => {
    const t = await host.tenant()
    const { familyId } = await catalog(t)
    const hundred = await t.req("POST", "/v1/products", { body: { familyId, name: "Few", attributes: undeclaredCodes(100) } })
    expect([hundred.status, hundred.json.error.details.issues.length, Object.keys(hundred.json.error.details)]).toEqual([422, 100, ["issues"]])
    const more = await t.req("POST", "/v1/products", { body: { familyId, name: "Few", attributes: undeclaredCodes(101) } })
    expect([more.status, more.json.error.details.issues.length, more.json.error.details.truncated]).toEqual([422, 100, true])
  })
})
