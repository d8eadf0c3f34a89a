import { Schema } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")

/** Keep-alive sockets shared by every request of the run: a cheap client, so the server is what gets measured. */
let agent = new http.Agent({ keepAlive: true, maxSockets: 16 })


const freePort = () =>
  new Promise<number>((done, fail) => {
    const srv = createServer()
    srv.once("error", fail)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      srv.close(() => done(port))
    })
  })

export interface BenchServer {
  readonly baseUrl: string
  readonly dataDir: string
  readonly serviceKey: string
  readonly session: (userId: string, email: string) => string
  readonly stop: () => Promise<void>
}

/** The real service in its own process (`npm start`'s entry), so load and server do not share a core. */
export const startServer = async (databaseUrl: string | undefined): Promise<BenchServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "catalog-bench-"))
  const port = await freePort()
  const serviceKey = `svc_${randomBytes(24).toString("base64url")}`
  const sessionSecret = randomBytes(32).toString("base64url")
  // BENCH_PROFILE_DIR=<dir> writes a CPU profile of the server when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []
  const child: ChildProcess = spawn(process.execPath, [...profile, "--import", "tsx", "hosts/http/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl ?? `sqlite:${join(dataDir, "catalog.db")}`,
      CATALOG_TENANCY: "multi",
      CATALOG_SERVICE_KEY: serviceKey,
      CATALOG_SESSION_SECRET: sessionSecret,
      CATALOG_DATA_DIR: dataDir,
      LOG_LEVEL: "error"
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  let stopping = false
  child.once("exit", (code, signal) => {
    if (!stopping) console.error(`the server exited unexpectedly (code ${code}, signal ${signal})`)
  })
  const baseUrl = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error("the server did not answer /healthz within 60 s")
    await new Promise((r) => setTimeout(r, 100))
  }
  const session = (userId: string, email: string) => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url")
    const now = Math.floor(Date.now() / 1000)
    const data = `${enc({ alg: "HS256", typ: "JWT" })}.${enc({ sub: userId, email, iat: now, exp: now + 86_400 })}`
    return `${data}.${createHmac("sha256", sessionSecret).update(data).digest("base64url")}`
  }
  return {
    baseUrl,
    dataDir,
    serviceKey,
    session,
    stop: async () => {
      stopping = true
      // Our own keep-alive sockets would hold the server's graceful shutdown open; the next
      // server gets a fresh agent (a destroyed one hands out sockets only slowly).
      agent.destroy()
      agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r))
        child.kill("SIGTERM")
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
        await exited
        clearTimeout(timer)
      }
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

export interface Client {
  readonly call: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }>
}

const WithId = Schema.Struct({ id: Schema.String })
const WithKey = Schema.Struct({ key: Schema.String })
export const idOf = (json: unknown) => Schema.decodeUnknownSync(WithId)(json).id

const isReset = (e: unknown) =>
  e instanceof Error && "code" in e && (e.code === "ECONNRESET" || e.code === "EPIPE")

/**
 * One HTTP exchange over the shared keep-alive agent. A GET is sent again once when its pooled
 * socket turns out to have been closed by the server's idle timeout (the bench pauses between phases).
 */
export const request = (
  url: string,
  method = "GET",
  headers: Record<string, string> = {},
  body?: string
): Promise<{ status: number; text: string }> =>
  exchange(url, method, headers, body).catch((e: unknown) =>
    method === "GET" && isReset(e) ? exchange(url, method, headers, body) : Promise.reject(e)
  )

const exchange = (
  url: string,
  method = "GET",
  headers: Record<string, string> = {},
  body?: string
): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const u = new URL(url)
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent, headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/** A JSON client that fails loudly on any non-2xx answer. */
export const client = (baseUrl: string, auth: string, headers: Record<string, string> = {}): Client => ({
  call: async (method, path, body) => {
    const res = await request(
      baseUrl + path,
      method,
      { authorization: `Bearer ${auth}`, ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body === undefined ? undefined : JSON.stringify(body)
    )
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`)
    return { status: res.status, json: res.text.length > 0 ? JSON.parse(res.text) : undefined }
  }
})

/** A fresh organization made with the service key, and an API key for it. */
export const newTenant = async (server: BenchServer): Promise<Client> => {
  const userId = randomUUID()
  const email = `bench-${userId.slice(0, 8)}@example.com`
  const session = server.session(userId, email)
  await fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${session}` } })
  const slug = `bench-${randomBytes(4).toString("hex")}`
  const org = await client(server.baseUrl, "", { "x-pim-service-key": server.serviceKey })
    .call("POST", "/v1/organizations", { name: "Bench", slug, initialAdmin: { userId, email } })
  const key = await client(server.baseUrl, session, { "x-organization-id": idOf(org.json) }).call("POST", "/v1/api-keys", { name: "bench" })
  return client(server.baseUrl, Schema.decodeUnknownSync(WithKey)(key.json).key)
}
