import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Agent, request } from "node:http"
import { Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { freePort } from "../support/Ports.js"
import { persistentTestDatabase, type TestDatabase } from "../support/TestDatabase.js"

const root = resolve(import.meta.dirname, "../..")

const idOf = Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String }), { onExcessProperty: "ignore" })
const idOfJson = (json: unknown) => idOf(json).id

const dirs: Array<string> = []
const databases: Array<TestDatabase> = []
afterAll(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }))
  for (const database of databases) await database.drop()
})

/** The host's entry as a process of its own on 127.0.0.1:`port`, its files under `dir`. */
const hostProcess = (port: number, dir: string, env: Record<string, string>): ChildProcess =>
  spawn(process.execPath, ["--import", "tsx", "hosts/http/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CATALOG_DATA_DIR: dir, LOG_LEVEL: "error", ...env },
    stdio: "ignore"
  })

/** The host as a process of its own, single-tenant on a SQLite file, once it answers. */
const startSingleTenantProcess = async (): Promise<{ key: string; port: number; child: ChildProcess }> => {
  const key = `pim_${randomBytes(32).toString("base64url")}`
  const dir = mkdtempSync(join(tmpdir(), "catalog-shutdown-"))
  dirs.push(dir)
  const port = await freePort()
  const child = hostProcess(port, dir, {
    DATABASE_URL: `sqlite:${join(dir, "catalog.db")}`,
    CATALOG_TENANCY: "single",
    CATALOG_BOOTSTRAP_API_KEY: key
  })
  for (let i = 0; i < 300; i++) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) break
    await new Promise((r) => setTimeout(r, 100))
  }
  return { key, port, child }
}

describe("graceful shutdown of the HTTP host", () => {
  it("on SIGTERM stops accepting, finishes the request in flight, then exits cleanly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catalog-shutdown-"))
    dirs.push(dir)
    const database = await persistentTestDatabase()
    databases.push(database)
    const port = await freePort()
    const serviceKey = `svc_${randomBytes(16).toString("hex")}`
    const secret = randomBytes(32).toString("hex")
    const child = hostProcess(port, dir, {
      DATABASE_URL: database.url,
      CATALOG_TENANCY: "multi",
      CATALOG_SERVICE_KEY: serviceKey,
      CATALOG_SESSION_SECRET: secret
    })
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
    const base = `http://127.0.0.1:${port}`
    for (let i = 0; i < 300; i++) {
      const up = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
      if (up) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const userId = randomUUID()
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url")
    const now = Math.floor(Date.now() / 1000)
    const data = `${enc({ alg: "HS256", typ: "JWT" })}.${enc({ sub: userId, email: `${userId}@example.com`, exp: now + 600 })}`
    const session = `${data}.${createHmac("sha256", secret).update(data).digest("base64url")}`
    await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${session}` } })
    const post = async (path: string, headers: Record<string, string>, body: unknown) =>
      idOfJson(await (await fetch(base + path, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) })).json())
    const orgId = await post("/v1/organizations", { "x-pim-service-key": serviceKey }, { name: "Shutdown", slug: "shutdown", initialAdmin: { userId } })
    const auth = { authorization: `Bearer ${session}`, "x-organization-id": orgId }
    const familyId = await post("/v1/attribute-families", auth, { code: "things", label: { en: "Things" } })

    const items = Array.from({ length: 500 }, (_, i) => ({ op: "create", familyId, name: `Item ${i}` }))
    const inFlight = fetch(`${base}/v1/products/bulk`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ items }) })
    await new Promise((r) => setTimeout(r, 30))
    child.kill("SIGTERM")

    const answer = await inFlight
    expect(answer.status).toBe(200)
    const { results } = Schema.decodeUnknownSync(Schema.Struct({ results: Schema.Array(Schema.Struct({ ok: Schema.Boolean })) }))(await answer.json())
    expect(results).toHaveLength(500)
    expect(results.every((r) => r.ok)).toBe(true)
    expect(await exited).toBe(0)
    const after = await fetch(`${base}/healthz`).then(() => "answered", () => "refused")
    expect(after).toBe("refused")
  })

  it("closes the connections it still answers on once stopping, so no request is sent on them to be cut", async () => {
    const { key, port, child } = await startSingleTenantProcess()
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
    // A client that keeps its connection for the next request, as load balancers and HTTP clients do.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const body = JSON.stringify({ code: "kept", label: { en: "Kept" } })
    const inFlight = request({
      agent,
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/v1/attribute-families",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length) }
    })
    const answered = new Promise<{ status: number | undefined; connection: string | undefined }>((r, reject) => {
      inFlight.once("response", (response) => {
        response.resume()
        r({ status: response.statusCode, connection: response.headers.connection })
      })
      inFlight.once("error", reject)
    })
    inFlight.write(body.slice(0, 10))
    await new Promise((r) => setTimeout(r, 300))
    child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    inFlight.end(body.slice(10))
    // Answered, and told not to send another request on this connection: the process is going.
    expect(await answered).toEqual({ status: 201, connection: "close" })
    agent.destroy()
    expect(await exited).toBe(0)
  }, 60_000)
})

describe("a second signal while the host drains", () => {
  it("stops it within a second, cutting the requests still in flight", async () => {
    const { key, port, child } = await startSingleTenantProcess()
    const exited = new Promise<{ code: number | null; at: number }>((r) => child.once("exit", (code) => r({ code, at: Date.now() })))
    // A request whose body never finishes arriving: the drain waits for it (up to 25 s).
    const body = JSON.stringify({ code: "slow", label: { en: "Slow" } })
    const slow = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/v1/attribute-families",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(body.length) }
    })
    const answered = new Promise<string>((r) => {
      slow.once("response", (response) => r(`answered ${response.statusCode}`))
      slow.once("error", () => r("cut"))
    })
    slow.write(body.slice(0, 10))
    await new Promise((r) => setTimeout(r, 300))
    child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 1_000))
    expect(child.exitCode).toBe(null)
    const second = Date.now()
    child.kill("SIGINT")
    const { at, code } = await exited
    expect(at - second).toBeLessThan(1_000)
    expect(code).toBe(130)
    expect(await answered).toBe("cut")
  }, 60_000)
})
