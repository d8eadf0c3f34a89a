import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

/**
 * Another process holding a SQLite file's write lock: a write that cannot take it (at once when
 * its transaction read first, else after the busy timeout of 5 s) answers 503 `unavailable`,
 * which a client may try again, not a 500.
 */
describe("a SQLite file another process keeps locked", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-busy-"))
  const file = join(folder, "catalog.db")
  let host: TestHost
  let t: TestTenant
  beforeAll(async () => {
    host = await startTestHost({ databaseUrl: `sqlite:${file}` })
    t = await host.tenant()
  })
  afterAll(async () => {
    await host?.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it("answers a write 503 unavailable while the lock is held, and takes it once it is released", async () => {
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })
    const other = new Database(file)
    try {
      other.exec("BEGIN IMMEDIATE")
      const r = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Waiting" } })
      expect([r.status, r.json]).toEqual([503, { error: { code: "unavailable", message: "the database does not answer" } }])
      other.exec("ROLLBACK")
    } finally {
      other.close()
    }
    expect((await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Taken" } })).status).toBe(201)
    expect((await t.req("GET", "/v1/products")).json.data.map((p: { name: string }) => p.name)).toEqual(["Taken"])
  }, 30_000)
})
