import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

/**
 * Another process holding a SQLite file's write lock. SQLite refuses a write whose transaction
 * read first at once (SQLITE_BUSY), as every product write does: the service runs it again
 * until the lock is free, for at most the busy timeout (5 s), and only then answers 503
 * `unavailable`, which a client may try again, not a 500.
 */
describe("a SQLite file another process keeps locked", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-busy-"))
  const file = join(folder, "catalog.db")
  let host: TestHost
  let t: TestTenant
  let familyId: string
  beforeAll(async () => {
    host = await startTestHost({ databaseUrl: `sqlite:${file}` })
    t = await host.tenant()
    familyId = (await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json.id
  })
  afterAll(async () => {
    await host?.close()
    rmSync(folder, { recursive: true, force: true })
  })
  /** Holds the write lock from another connection until `release` is called. */
  const holdLock = () => {
    const other = new Database(file)
    other.exec("BEGIN IMMEDIATE")
    return () => {
      other.exec("ROLLBACK")
      other.close()
    }
  }
  const names = async () => (await t.req("GET", "/v1/products?sortBy=name")).json.data.map((p: { name: string }) => p.name)

  it("writes once the other process lets go of the lock", async () => {
    const release = holdLock()
    const released = new Promise((resolve) => setTimeout(() => resolve(release()), 300))
    const r = await t.req("POST", "/v1/products", { body: { familyId, name: "Waited" } })
    await released
    expect(r.status).toBe(201)
    expect(await names()).toEqual(["Waited"])
  })

  it("answers 503 unavailable when the lock is held past the busy timeout, having written nothing", async () => {
    const release = holdLock()
    try {
      const r = await t.req("POST", "/v1/products", { body: { familyId, name: "Refused" } })
      expect([r.status, r.json]).toEqual([503, { error: { code: "unavailable", message: "the database does not answer" } }])
    } finally {
      release()
    }
    expect(await names()).toEqual(["Waited"])
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "Taken" } })).status).toBe(201)
  }, 30_000)
})
