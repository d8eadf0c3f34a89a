import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

const contentFamily = async (t: TestTenant) => {
  const family = await t.req("POST", "/v1/attribute-families", { body: { code: "page", label: { en: "Page" }, entityKind: "content" } })
  const body = await t.req("POST", "/v1/attributes", { body: { code: "body", label: { en: "Body" }, type: "richtext", entityKind: "content", requirement: "required" } })
  expect((await t.req("POST", `/v1/attribute-families/${family.json.id}/attributes`, { body: { attributeId: body.json.id } })).status).toBe(201)
  return family.json.id as string
}

describe("content pages over HTTP", () => {
  it("creates (201), lists as a page, patches, refuses bad input (422) and deletes (204)", async () => {
    const t = await host.tenant()
    const familyId = await contentFamily(t)
    const created = await t.req("POST", "/v1/content-pages", { body: { familyId, title: "Shipping & returns" } })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ familyId, title: "Shipping & returns", slug: "shipping-returns", status: "draft", attributes: {}, organizationId: t.organization.id })
    expect((await t.req("POST", "/v1/content-pages", { body: { familyId, title: "Again", slug: "shipping-returns" } })).status).toBe(409)
    const activate = await t.req("PATCH", `/v1/content-pages/${created.json.id}`, { body: { status: "active" } })
    expect(activate.status).toBe(422)
    expect(activate.json.error.details.issues[0].path).toEqual(["attributes", "body"])
    const patched = await t.req("PATCH", `/v1/content-pages/${created.json.id}`, {
      body: { status: "active", attributes: { body: [{ locale: null, channel: null, value: "<p>Free</p>" }] } }
    })
    expect(patched.json).toMatchObject({ status: "active", attributes: { body: [{ locale: null, channel: null, value: "<p>Free</p>" }] } })
    const list = await t.req("GET", "/v1/content-pages?limit=10")
    expect(list.json).toMatchObject({ limit: 10, offset: 0, hasMore: false })
    expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([created.json.id])
    expect((await t.req("GET", "/v1/content-pages?colour=red")).status).toBe(422)
    expect((await t.req("GET", "/v1/content-pages/not-a-uuid")).status).toBe(422)
    const removed = await t.req("DELETE", `/v1/content-pages/${created.json.id}`)
    expect(removed.status).toBe(204)
    expect((await t.req("GET", `/v1/content-pages/${created.json.id}`)).json.error.code).toBe("not_found")
  })

  it("answers 403 forbidden to every call, valid or not, while the organization turned them off", async () => {
    const t = await host.tenant()
    const familyId = await contentFamily(t)
    const created = await t.req("POST", "/v1/content-pages", { body: { familyId, title: "Kept" } })
    expect((await t.sreq("PATCH", "/v1/organizations/me", { body: { settings: { content_pages_enabled: false } } })).status).toBe(200)
    const calls: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", "/v1/content-pages"],
      ["GET", "/v1/content-pages?colour=red"],
      ["POST", "/v1/content-pages", { familyId, title: "New" }],
      ["POST", "/v1/content-pages", { nonsense: true }],
      ["GET", `/v1/content-pages/${created.json.id}`],
      ["GET", "/v1/content-pages/not-a-uuid"],
      ["PATCH", `/v1/content-pages/${created.json.id}`, { title: "Changed" }],
      ["DELETE", `/v1/content-pages/${created.json.id}`]
    ]
    for (const [method, path, body] of calls) {
      const r = await t.req(method, path, body === undefined ? {} : { body })
      expect([method, path, r.status, r.json.error.code]).toEqual([method, path, 403, "forbidden"])
    }
    expect((await t.req("GET", "/v1/content-pages", { auth: "pim_wrong" })).status).toBe(401)
  })

  it("answers 403 where the plan does not include content pages", async () => {
    const unentitled = await startTestHost({ contentPagesEntitled: false })
    try {
      const t = await unentitled.tenant()
      const me = await t.req("GET", "/v1/organizations/me")
      expect(me.json.features.content_pages).toEqual({ entitled: false, enabled: true })
      const r = await t.req("GET", "/v1/content-pages")
      expect([r.status, r.json.error.code]).toEqual([403, "forbidden"])
    } finally {
      await unentitled.close()
    }
  })
})
