import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startTestHost, type TestHost } from "../support/TestHost.js"

// Two processes on one database: the second still holds an API key of an organization the first deleted.
describe("a write by a process that still holds the key of a deleted organization", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-two-hosts-"))
  let first: TestHost
  let second: TestHost
  beforeAll(async () => {
    const databaseUrl = `sqlite:${join(folder, "catalog.db")}`
    first = await startTestHost({ databaseUrl })
    second = await startTestHost({ databaseUrl })
  })
  afterAll(async () => {
    await second.close()
    await first.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it("answers 401, as a process that never saw the key does", async () => {
    const t = await first.tenant()
    const auth = t.apiKey
    expect((await second.request("GET", "/v1/brands", { auth })).status).toBe(200)
    const deleted = await t.sreq("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: t.organization.slug } })
    expect(deleted.status).toBe(200)
    expect((await first.request("POST", "/v1/brands", { auth, body: { name: "Late" } })).status).toBe(401)

    const late = await second.request("POST", "/v1/brands", { auth, body: { name: "Late" } })
    expect(late.status).toBe(401)
    expect(late.json).toEqual({ error: { code: "unauthenticated", message: `organization ${t.organization.id} no longer exists` } })
    const group = await second.request("POST", "/v1/attribute-groups", { auth, body: { code: "late", label: { en: "Late" } } })
    expect(group.status).toBe(401)
  })
})
