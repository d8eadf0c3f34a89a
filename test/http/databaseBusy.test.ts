import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant, uuid } from "../support/TestHost.js"

/**
 * Another process holding a SQLite file's write lock, or writing beside the service. A write
 * transaction takes the lock when it begins: while another process holds it, the service tries
 * again until it is free, for at most 5 s, and only then answers 503 `unavailable`, which a
 * client may try again, not a 500.
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

  it("signs in a new user once the lock is free, after a sign-in the lock refused", async () => {
    const token = host.session(uuid(), `late-${Date.now()}@example.com`)
    const release = holdLock()
    try {
      const refused = await host.request("GET", "/v1/me", { auth: token })
      expect([refused.status, refused.json?.error?.code]).toEqual([503, "unavailable"])
    } finally {
      release()
    }
    // The refusal is not remembered: the next request records the user and answers.
    const me = await host.request("GET", "/v1/me", { auth: token })
    expect([me.status, me.json?.actor?.type]).toEqual([200, "user"])
  }, 30_000)

  it("answers product lists, searches and facets while another process holds the write lock", async () => {
    const release = holdLock()
    try {
      for (const path of ["/v1/products?withTotal=true", "/v1/products?q=steady", "/v1/products/facets"]) {
        expect([path, (await t.req("GET", path)).status]).toEqual([path, 200])
      }
    } finally {
      release()
    }
  })

  it("writes a batch that reads before it writes while another process commits many small writes", async () => {
    // Another process writing steadily, a short transaction every millisecond, as a second host would.
    const script = `
      const db = new (require("better-sqlite3"))(${JSON.stringify(file)}, { timeout: 0 })
      db.exec("CREATE TABLE IF NOT EXISTS other_process (n integer)")
      const tick = db.prepare("INSERT INTO other_process VALUES (1)")
      setInterval(() => { try { tick.run() } catch {} }, 1)
      process.stdout.write("writing\\n")`
    const other = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] })
    await new Promise((resolve) => other.stdout!.once("data", resolve))
    try {
      const items = Array.from({ length: 200 }, (_, i) => ({ op: "create", familyId, name: `Steady ${i}` }))
      const r = await t.req("POST", "/v1/products/bulk", { body: { items } })
      expect([r.status, r.json.results?.every((x: { ok: boolean }) => x.ok)]).toEqual([200, true])
    } finally {
      other.kill()
    }
    const committed = new Database(file, { readonly: true })
    try {
      expect((committed.prepare("select count(*) as n from other_process").get() as { n: number }).n).toBeGreaterThan(0)
    } finally {
      committed.close()
    }
  }, 30_000)
})
