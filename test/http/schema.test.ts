import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant, uuid } from "../support/TestHost.js"

let host: TestHost
let t: TestTenant

beforeAll(async () => {
  host = await startTestHost()
  t = await host.tenant()
})
afterAll(() => host.close())

describe("HTTP: the run-time schema", () => {
  it("creates an attribute with every default and answers it by id", async () => {
    const r = await t.req("POST", "/v1/attributes", { body: { code: "colour", label: { en: "Colour" }, type: "select", validation: { options: ["red"] } } })
    expect(r.status).toBe(201)
    expect(r.json).toMatchObject({
      code: "colour",
      entityKind: "product",
      isLocalizable: false,
      isScopable: false,
      requirement: "available",
      isRequired: false,
      isVariantAxis: false,
      groupId: null,
      defaultValue: null,
      position: 0,
      validation: { options: ["red"] },
      organizationId: t.organization.id
    })
    const g = await t.req("GET", `/v1/attributes/${r.json.id}`)
    expect(g.status).toBe(200)
    expect(g.json).toEqual(r.json)
    const p = await t.req("PATCH", `/v1/attributes/${r.json.id}`, { body: { isRequired: true } })
    expect(p.json).toMatchObject({ requirement: "required", isRequired: true })
  })

  it("answers bad input with 422 issues naming the field, and a malformed path id with 422", async () => {
    const r = await t.req("POST", "/v1/attributes", { body: { code: "Bad", label: { en: "x" }, type: "text" } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe("validation_failed")
    expect(r.json.error.details.issues[0].path).toEqual(["code"])
    const contradiction = await t.req("POST", "/v1/attributes", { body: { code: "c", label: {}, type: "text", requirement: "required", isRequired: false } })
    expect(contradiction.status).toBe(422)
    expect(contradiction.json.error.details.issues[0].path).toEqual(["isRequired"])
    const defaultValue = await t.req("POST", "/v1/attributes", { body: { code: "price", label: {}, type: "money", defaultValue: { amount_cents: 1.5, currency: "EUR" } } })
    expect(defaultValue.status).toBe(422)
    expect(defaultValue.json.error.details.issues[0].path).toEqual(["defaultValue", "amount_cents"])
    // A `__proto__` key of free-form rules is an ordinary key: kept, and never read as a rule.
    const rules = JSON.parse(`{"__proto__": {"maxLength": 2}, "maxLength": 20}`)
    const proto = await t.req("POST", "/v1/attributes", { body: { code: "motto", label: {}, type: "text", validation: rules, defaultValue: "abcd" } })
    expect([proto.status, Object.keys(proto.json.validation ?? {})]).toEqual([201, ["__proto__", "maxLength"]])
    const notRules = await t.req("POST", "/v1/attributes", { body: { code: "motto2", label: {}, type: "text", validation: [1] } })
    expect([notRules.status, notRules.json.error.details.issues]).toEqual([422, [{ path: ["validation"], message: "must be an object", code: "invalid_type" }]])
    // A number past a double's range would be stored as null: refused, not silently changed.
    const json = { "content-type": "application/json" }
    const huge = await t.req("POST", "/v1/attributes", { rawBody: '{"code":"motto3","label":{},"type":"text","validation":{"max":1e400}}', headers: json })
    expect([huge.status, huge.json.error.details.issues[0].path, huge.json.error.details.issues[0].code]).toEqual([422, ["validation"], "invalid"])
    const patched = await t.req("PATCH", `/v1/attributes/${proto.json.id}`, { rawBody: '{"validation":{"maxLength":[-1e400]}}', headers: json })
    expect([patched.status, patched.json.error.details.issues[0].path]).toEqual([422, ["validation"]])
    expect((await t.req("GET", `/v1/attributes/${proto.json.id}`)).json.validation).toEqual(rules)
    expect((await t.req("GET", "/v1/attributes/not-a-uuid")).status).toBe(422)
    expect((await t.req("GET", "/v1/attributes?entityKind=widget")).status).toBe(422)
    const category = await t.req("POST", "/v1/attribute-families", { body: { code: "cats", label: {}, entityKind: "category" } })
    expect([category.status, category.json.error.details.issues]).toEqual([
      422,
      [{ path: ["entityKind"], message: 'Expected "product" | "content", actual "category"', code: "invalid_type" }]
    ])
  })

  it("stores a kept default as the attribute's new type stores a value, and says it changed", async () => {
    const t = await host.tenant()
    const cases = [
      { type: "number", to: "decimal", sent: 5, stored: "5" },
      { type: "text", to: "reference", sent: "0190A0B1-0000-7000-8000-00000000ABCD", stored: "0190a0b1-0000-7000-8000-00000000abcd" },
      { type: "text", to: "datetime", sent: "2024-01-01T10:00:00+02:00", stored: "2024-01-01T08:00:00Z" }
    ]
    for (const [i, c] of cases.entries()) {
      const made = await t.req("POST", "/v1/attributes", { body: { code: `kept_${i}`, label: {}, type: c.type, defaultValue: c.sent } })
      const retyped = await t.req("PATCH", `/v1/attributes/${made.json.id}`, { body: { type: c.to } })
      expect([c.to, retyped.status, retyped.json.defaultValue]).toEqual([c.to, 200, c.stored])
      expect((await t.req("GET", `/v1/attributes/${made.json.id}`)).json.defaultValue).toEqual(c.stored)
      const [event] = (await t.req("GET", `/v1/audit-log?entity_id=${made.json.id}&action=updated`)).json.data
      expect(event.payload.changed_fields).toEqual(["type", "defaultValue"])
    }
  })

  it("refuses a label keyed `__proto__` instead of answering success without it", async () => {
    const json = { "content-type": "application/json" }
    const refused = (r: { status: number; json: any }) => [r.status, r.json.error?.details?.issues?.map((i: { path: unknown; code: string }) => [i.path, i.code])]
    const expected = [422, [[["label", "__proto__"], "unrecognized_key"]]]
    expect(refused(await t.req("POST", "/v1/attribute-groups", { rawBody: '{"code":"proto_group","label":{"__proto__":"x","en":"y"}}', headers: json }))).toEqual(expected)
    expect(refused(await t.req("POST", "/v1/attributes", { rawBody: '{"code":"proto_attr","label":{"__proto__":"x"},"type":"text"}', headers: json }))).toEqual(expected)
    expect(refused(await t.req("POST", "/v1/attribute-families", { rawBody: '{"code":"proto_family","label":{"__proto__":"x"}}', headers: json }))).toEqual(expected)
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "proto_family", label: { en: "Family", toString: "kept" } } })
    expect([family.status, family.json.label]).toEqual([201, { en: "Family", toString: "kept" }])
    expect(refused(await t.req("PATCH", `/v1/attribute-families/${family.json.id}`, { rawBody: '{"label":{"__proto__":"x"}}', headers: json }))).toEqual(expected)
    expect((await t.req("GET", `/v1/attribute-families/${family.json.id}`)).json.label).toEqual({ en: "Family", toString: "kept" })
  })

  it("refuses a label naming one locale twice in different cases, which facets read one way on SQLite and another on Postgres", async () => {
    const refused = (r: { status: number; json: any }) => [r.status, r.json.error?.details?.issues?.map((i: { path: unknown; code: string }) => i.path)]
    const twice = { "fr-CA": "Famille", "FR-ca": "Autre", en: "Family" }
    expect(refused(await t.req("POST", "/v1/attribute-groups", { body: { code: "twice_group", label: twice } }))).toEqual([422, [["label", "FR-ca"]]])
    expect(refused(await t.req("POST", "/v1/attributes", { body: { code: "twice_attr", label: twice, type: "text" } }))).toEqual([422, [["label", "FR-ca"]]])
    expect(refused(await t.req("POST", "/v1/attribute-families", { body: { code: "twice_family", label: twice } }))).toEqual([422, [["label", "FR-ca"]]])
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "twice_family", label: { "fr-CA": "Famille", en: "Family" } } })
    expect(family.status).toBe(201)
    expect(refused(await t.req("PATCH", `/v1/attribute-families/${family.json.id}`, { body: { label: { ...twice, "EN": "x" } } }))).toEqual([422, [["label", "FR-ca"], ["label", "EN"]]])
    const attribute = await t.req("POST", "/v1/attributes", { body: { code: "twice_attr", label: { en: "x" }, type: "text" } })
    expect(refused(await t.req("PATCH", `/v1/attributes/${attribute.json.id}`, { body: { label: { en: "x", EN: "y" } } }))).toEqual([422, [["label", "EN"]]])
    await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Labelled" } })
    const facets = await t.req("GET", `/v1/products/facets?familyId=${family.json.id}&locale=fr-ca`)
    expect(facets.json.families.find((f: { id: string }) => f.id === family.json.id).label).toBe("Famille")
  })

  it("refuses a label keyed by the empty string, which names no locale", async () => {
    const refused = (r: { status: number; json: any }) => [r.status, r.json.error?.details?.issues?.map((i: { path: unknown; message: string; code: string }) => [i.path, i.message, i.code])]
    // A check of the label, failing below it: coded as a failed check, as one at the label is.
    const expected = [422, [[["label", ""], "must name a locale", "invalid"]]]
    const label = { "": "Nameless", en: "Named" }
    const group = await t.req("POST", "/v1/attribute-groups", { body: { code: "empty_locale_group", label } })
    expect(refused(group)).toEqual(expected)
    // The summary quotes the empty key: `label.: ...` named no key at all.
    expect(group.json.error.message).toBe('label."": must name a locale')
    expect(refused(await t.req("POST", "/v1/attributes", { body: { code: "empty_locale_attr", label, type: "text" } }))).toEqual(expected)
    expect(refused(await t.req("POST", "/v1/attribute-families", { body: { code: "empty_locale_family", label } }))).toEqual(expected)
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "empty_locale_family", label: { fr: "Famille" } } })
    expect(refused(await t.req("PATCH", `/v1/attribute-families/${family.json.id}`, { body: { label } }))).toEqual(expected)
    expect((await t.req("GET", `/v1/attribute-families/${family.json.id}`)).json.label).toEqual({ fr: "Famille" })
  })

  it("refuses a label key longer than 35 characters or holding white space, which names no locale", async () => {
    const issues = (r: { status: number; json: any }) => [r.status, r.json.error?.details?.issues?.map((i: { path: unknown }) => i.path)]
    const long = "en-" + "x".repeat(33)
    for (const key of [long, " ", "en US", "en\n"]) {
      const label = { [key]: "Text", en: "Text" }
      expect(issues(await t.req("POST", "/v1/attribute-groups", { body: { code: "odd_locale_group", label } }))).toEqual([422, [["label", key]]])
      expect(issues(await t.req("POST", "/v1/attributes", { body: { code: "odd_locale_attr", label, type: "text" } }))).toEqual([422, [["label", key]]])
      expect(issues(await t.req("POST", "/v1/attribute-families", { body: { code: "odd_locale_family", label } }))).toEqual([422, [["label", key]]])
    }
    const longest = "en-" + "x".repeat(32)
    expect((await t.req("POST", "/v1/attribute-groups", { body: { code: "odd_locale_group", label: { [longest]: "Text", "zh-Hant-TW": "Text" } } })).status).toBe(201)
  })

  it("refuses an honoured validation rule no check could read, naming it, and keeps keys of the client's own", async () => {
    const issues = (r: { status: number; json: any }) => [r.status, r.json.error?.details?.issues?.map((i: { path: unknown; code: string }) => [i.path, i.code])]
    const validation = { maxLength: "10", minLength: -1, pattern: 5, min: true, max: {}, options: "red", units: [1], currencies: "EUR", hint: "free" }
    const refused = await t.req("POST", "/v1/attributes", { body: { code: "odd_rules", label: { en: "x" }, type: "text", validation } })
    expect(issues(refused)).toEqual([422, [
      [["validation", "pattern"], "invalid_type"],
      [["validation", "minLength"], "invalid_type"],
      [["validation", "maxLength"], "invalid_type"],
      [["validation", "min"], "invalid_type"],
      [["validation", "max"], "invalid_type"],
      [["validation", "options"], "invalid_type"],
      [["validation", "units"], "invalid_type"],
      [["validation", "currencies"], "invalid_type"]
    ]])
    const kept = { maxLength: 10, minLength: null, min: "2024-01-01", max: 5, options: [{ code: "red" }], hint: { shown: true } }
    const created = await t.req("POST", "/v1/attributes", { body: { code: "odd_rules", label: { en: "x" }, type: "text", validation: kept } })
    expect([created.status, created.json.validation]).toEqual([201, kept])
    const patched = await t.req("PATCH", `/v1/attributes/${created.json.id}`, { body: { validation: { maxLength: 1.5 } } })
    expect(issues(patched)).toEqual([422, [[["validation", "maxLength"], "invalid_type"]]])
  })

  it("answers 422 for a taken code or a second attachment, and 404 for another organization's attribute", async () => {
    const body = { code: "dup", label: {}, type: "text" }
    const first = await t.req("POST", "/v1/attributes", { body })
    expect(first.status).toBe(201)
    const taken = (r: { status: number; json: any }) => [r.status, r.json.error.code, r.json.error.details.issues.map((i: { path: unknown; code: string }) => [i.path, i.code])]
    expect(taken(await t.req("POST", "/v1/attributes", { body }))).toEqual([422, "validation_failed", [[["code"], "taken"]]])
    const other = await t.req("POST", "/v1/attributes", { body: { code: "dup_two", label: {}, type: "text" } })
    expect(taken(await t.req("PATCH", `/v1/attributes/${other.json.id}`, { body: { code: "dup" } }))).toEqual([422, "validation_failed", [[["code"], "taken"]]])
    expect((await t.req("POST", "/v1/attribute-groups", { body: { code: "dup_group", label: {} } })).status).toBe(201)
    expect(taken(await t.req("POST", "/v1/attribute-groups", { body: { code: "dup_group", label: {} } }))).toEqual([422, "validation_failed", [[["code"], "taken"]]])
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "dup_family", label: {} } })
    expect(taken(await t.req("POST", "/v1/attribute-families", { body: { code: "dup_family", label: {} } }))).toEqual([422, "validation_failed", [[["code"], "taken"]]])
    const attach = () => t.req("POST", `/v1/attribute-families/${family.json.id}/attributes`, { body: { attributeId: first.json.id } })
    expect((await attach()).status).toBe(201)
    expect(taken(await attach())).toEqual([422, "validation_failed", [[["attributeId"], "already_attached"]]])
    const stranger = await host.tenant()
    const theirs = await stranger.req("POST", "/v1/attributes", { body: { code: "theirs", label: {}, type: "text" } })
    const r = await t.req("GET", `/v1/attributes/${theirs.json.id}`)
    expect(r.status).toBe(404)
    expect(r.json.error.code).toBe("not_found")
    expect((await t.req("DELETE", `/v1/attributes/${theirs.json.id}`)).status).toBe(404)
  })

  it("serves a family with its attributes, and deletes attributes with 204 and their usage with 404 after", async () => {
    const a = await t.req("POST", "/v1/attributes", { body: { code: "weight", label: {}, type: "measurement", requirement: "required" } })
    const f = await t.req("POST", "/v1/attribute-families", { body: { code: "parcels", label: { en: "Parcels" } } })
    expect(f.status).toBe(201)
    const at = await t.req("POST", `/v1/attribute-families/${f.json.id}/attributes`, { body: { attributeId: a.json.id, requirementOverride: "suggested" } })
    expect(at.status).toBe(201)
    expect(at.json).toEqual({ familyId: f.json.id, attributeId: a.json.id, requirementOverride: "suggested", isRequiredOverride: false, position: 0 })
    const g = await t.req("GET", `/v1/attribute-families/${f.json.id}`)
    expect(g.json.attributes).toEqual([expect.objectContaining({
      code: "weight",
      type: "measurement",
      requirement: "required",
      isRequired: true,
      effectiveRequirement: "suggested",
      effectiveIsRequired: false
    })])
    expect((await t.req("GET", `/v1/attributes/${a.json.id}/usage`)).json).toEqual({ products: 0, variants: 0, contentPages: 0, categories: 0, brands: 0, total: 0 })
    const d = await t.req("DELETE", `/v1/attributes/${a.json.id}`)
    expect(d.status).toBe(204)
    expect(d.text).toBe("")
    expect((await t.req("GET", `/v1/attributes/${a.json.id}/usage`)).status).toBe(404)
    expect((await t.req("GET", `/v1/attribute-families/${f.json.id}`)).json.attributes).toEqual([])
    expect((await t.req("PATCH", `/v1/attribute-families/${f.json.id}`, { body: { description: "boxes" } })).json.description).toBe("boxes")
    const resent = await t.req("PATCH", `/v1/attribute-families/${f.json.id}`, { body: { code: f.json.code, entityKind: "product", description: "crates" } })
    expect(resent.json).toMatchObject({ code: f.json.code, description: "crates" })
    const moved = await t.req("PATCH", `/v1/attribute-families/${f.json.id}`, { body: { code: "renamed", entityKind: "content", description: "bins" } })
    expect(moved.status).toBe(422)
    expect(moved.json.error.details.issues.map((i: { path: Array<string>; code: string }) => [i.path, i.code])).toEqual([[["code"], "immutable"], [["entityKind"], "immutable"]])
    expect((await t.req("GET", `/v1/attribute-families/${f.json.id}`)).json).toMatchObject({ code: f.json.code, description: "crates" })
    expect((await t.req("DELETE", `/v1/attribute-families/${f.json.id}`)).status).toBe(204)
    expect((await t.req("GET", `/v1/attribute-families/${uuid()}`)).status).toBe(404)
  })

  it("keeps an attribute localizable while a product holds a value at a locale", async () => {
    const a = await t.req("POST", "/v1/attributes", { body: { code: "headline", label: {}, type: "text", isLocalizable: true } })
    const f = await t.req("POST", "/v1/attribute-families", { body: { code: "headlined", label: {} } })
    await t.req("POST", `/v1/attribute-families/${f.json.id}/attributes`, { body: { attributeId: a.json.id } })
    const p = await t.req("POST", "/v1/products", {
      body: { familyId: f.json.id, name: "Headlined", attributes: { headline: [{ locale: "en", channel: null, value: "Hello" }] } }
    })
    expect(p.status).toBe(201)
    const off = await t.req("PATCH", `/v1/attributes/${a.json.id}`, { body: { isLocalizable: false } })
    expect(off.status).toBe(422)
    expect(off.json.error.details.issues).toEqual([expect.objectContaining({ path: ["isLocalizable"], code: "in_use" })])
    await t.req("PATCH", `/v1/products/${p.json.id}`, { body: { attributes: { headline: [{ locale: "en", channel: null, value: null }] } } })
    expect((await t.req("PATCH", `/v1/attributes/${a.json.id}`, { body: { isLocalizable: false } })).json.isLocalizable).toBe(false)
  })

  it("provisions the brand schema on first listing, once", async () => {
    const [first, second] = await Promise.all([
      t.req("GET", "/v1/attribute-families?entityKind=brand"),
      t.req("GET", "/v1/attribute-families?entityKind=brand")
    ])
    expect(first?.json).toHaveLength(1)
    expect(second?.json).toEqual(first?.json)
    const attrs = await t.req("GET", "/v1/attributes?entityKind=brand")
    expect(attrs.json.map((a: { code: string }) => a.code)).toEqual(["description"])
  })

  it("refuses requests without credentials", async () => {
    const r = await host.request("GET", "/v1/attribute-groups")
    expect(r.status).toBe(401)
    expect(r.json.error.code).toBe("unauthenticated")
  })
})
