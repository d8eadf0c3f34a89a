import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

/** A connector installed with a header that describes the body, before such headers were refused. */
describe("a connector stored with a header refused since", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-headers-"))
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

  it("is read and accepted back whole, while installing one with that header is refused", async () => {
    const config = { destination_url: "http://127.0.0.1:9/h", secret: "whsec-stored-0123456789" }
    const created = await t.req("POST", "/v1/connectors", { body: { type: "headless", name: "Old", config } })
    const stored = { "Content-Encoding": "gzip" }
    const db = new Database(file)
    db.prepare("UPDATE connectors SET extra_headers = ? WHERE id = ?").run(JSON.stringify(stored), created.json.id)
    db.close()

    const read = await t.req("GET", `/v1/connectors/${created.json.id}`)
    expect([read.status, read.json.config.extra_headers]).toEqual([200, stored])
    const sentBack = await t.req("PATCH", `/v1/connectors/${created.json.id}`, { body: { ...read.json, name: "Old again" } })
    expect([sentBack.status, sentBack.json.config?.extra_headers]).toEqual([200, stored])

    const again = await t.req("POST", "/v1/connectors", { body: { type: "headless", name: "New", config: { ...config, extra_headers: stored } } })
    expect([again.status, again.json.error.details.issues]).toEqual([422, [{
      path: ["config", "extra_headers", "Content-Encoding"],
      message: "Content-Encoding describes the body, which the service sets, and cannot be overridden",
      code: "invalid"
    }]])
  })
})
