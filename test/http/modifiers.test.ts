import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

describe("modifiers over HTTP", () => {
  it("creates (201), refuses a duplicate code (409) and bad input (422), deletes (204)", async () => {
    const t = await host.tenant()
    const body = { code: "engraving", name: "Engraving", type: "text" }
    const created = await t.req("POST", "/v1/modifiers", { body })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ ...body, options: [] })
    expect((await t.req("POST", "/v1/modifiers", { body })).status).toBe(409)
    expect((await t.req("POST", "/v1/modifiers", { body: { code: "Bad Code", name: "x", type: "text" } })).status).toBe(422)
    expect((await t.req("POST", "/v1/modifiers", { body: { code: "x", name: "x", type: "colour" } })).status).toBe(422)
    expect((await t.req("GET", "/v1/modifiers")).json.map((m: { id: string }) => m.id)).toEqual([created.json.id])
    const patched = await t.req("PATCH", `/v1/modifiers/${created.json.id}`, { body: { name: "Laser engraving" } })
    expect(patched.json.name).toBe("Laser engraving")
    const removed = await t.req("DELETE", `/v1/modifiers/${created.json.id}`)
    expect(removed.status).toBe(204)
    expect(removed.text).toBe("")
    expect((await t.req("GET", `/v1/modifiers/${created.json.id}`)).status).toBe(404)
  })
})
