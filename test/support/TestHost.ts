import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer, ManagedRuntime, Option, Redacted } from "effect"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { HostConfig } from "../../hosts/http/Config.js"
import { makeNodeServer } from "../../hosts/http/NodeServer.js"
import { server } from "../../hosts/http/Server.js"
import { hostTestDatabase } from "./TestDatabase.js"

export interface Response {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // Parsed JSON body; tests assert on its shape.
  readonly json: any
}

export interface RequestOptions {
  readonly body?: unknown
  readonly rawBody?: string | Uint8Array
  readonly headers?: Record<string, string>
  readonly auth?: string
}

export interface TestHost {
  readonly baseUrl: string
  readonly config: HostConfig
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<Response>
  /** An HS256 session token for `userId`, as the admin interface would hold. */
  readonly session: (userId: string, email?: string, expiresInSeconds?: number) => string
  /** A fresh organization made with the service key, its admin session and an API key. */
  readonly tenant: () => Promise<TestTenant>
  readonly close: () => Promise<void>
}

export interface TestTenant {
  readonly organization: { readonly id: string; readonly slug: string; readonly name: string }
  readonly userId: string
  readonly session: string
  readonly apiKey: string
  readonly apiKeyId: string
  /** A request with the tenant's API key. */
  readonly req: (method: string, path: string, options?: RequestOptions) => Promise<Response>
  /** A request with the admin session and `x-organization-id`. */
  readonly sreq: (method: string, path: string, options?: RequestOptions) => Promise<Response>
}

const sign = (secret: string, payload: object) => {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url")
  const data = `${enc({ alg: "HS256", typ: "JWT" })}.${enc(payload)}`
  return `${data}.${createHmac("sha256", secret).update(data).digest("base64url")}`
}

/**
 * Starts the real HTTP host in-process on a free port, on a database of its own unless told
 * otherwise: SQLite `:memory:`, or with `CATALOG_TEST_HOST_DATABASE=postgres` a fresh Postgres
 * database, dropped when it closes. `nodeServer` makes the Node server under it.
 */
export const startTestHost = async (
  overrides: Partial<HostConfig> = {},
  nodeServer: () => Server = makeNodeServer
): Promise<TestHost> => {
  const database = overrides.databaseUrl === undefined ? await hostTestDatabase() : { url: overrides.databaseUrl, drop: async () => {} }
  const dataDir = mkdtempSync(join(tmpdir(), "catalog-test-"))
  const sessionSecret = randomBytes(32).toString("base64url")
  const serviceKey = `svc_${randomBytes(24).toString("base64url")}`
  const config: HostConfig = {
    port: 0,
    host: "127.0.0.1",
    databaseUrl: database.url,
    tenancy: "multi",
    bootstrapOrgSlug: "default",
    bootstrapApiKey: Option.none(),
    bootstrapAdminEmail: Option.none(),
    serviceKey: Option.some(Redacted.make(serviceKey)),
    sessionSecret: Option.some(Redacted.make(sessionSecret)),
    dataDir,
    webhookAllowedPrivateAddresses: ["127.0.0.1/32"],
    contentPagesEntitled: true,
    logLevel: "error",
    ...overrides
  }
  const runtime = ManagedRuntime.make(
    server(config).pipe(Layer.provideMerge(NodeHttpServer.layer(nodeServer, { port: 0, host: "127.0.0.1" })))
  )
  const address = await runtime.runPromise(HttpServer.HttpServer).then((s) => s.address).catch(async (error) => {
    await runtime.dispose()
    rmSync(dataDir, { recursive: true, force: true })
    await database.drop()
    throw error
  })
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const baseUrl = `http://127.0.0.1:${address.port}`

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...options.headers }
    let body: string | Uint8Array | undefined
    if (options.rawBody !== undefined) body = options.rawBody
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    if (options.auth !== undefined) headers.authorization = `Bearer ${options.auth}`
    const res = await fetch(baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}), redirect: "manual" })
    const text = await res.text()
    let json: unknown
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, text, json }
  }

  const session = (userId: string, email?: string, expiresInSeconds = 3600) => {
    const now = Math.floor(Date.now() / 1000)
    return sign(sessionSecret, { sub: userId, ...(email !== undefined ? { email } : {}), iat: now, exp: now + expiresInSeconds })
  }

  const tenant = async (): Promise<TestTenant> => {
    const userId = randomUUID()
    const email = `admin-${userId.slice(0, 8)}@example.com`
    const token = session(userId, email)
    await request("GET", "/v1/me", { auth: token })
    const slug = `org-${randomBytes(5).toString("hex")}`
    const org = await request("POST", "/v1/organizations", {
      headers: { "x-pim-service-key": serviceKey },
      body: { name: `Org ${slug}`, slug, initialAdmin: { userId, email } }
    })
    if (org.status !== 201) throw new Error(`tenant: create organization answered ${org.status} ${org.text}`)
    const sreq = (method: string, path: string, options: RequestOptions = {}) =>
      request(method, path, { auth: token, ...options, headers: { "x-organization-id": org.json.id, ...options.headers } })
    const key = await sreq("POST", "/v1/api-keys", { body: { name: "test" } })
    if (key.status !== 201) throw new Error(`tenant: create API key answered ${key.status} ${key.text}`)
    return {
      organization: org.json,
      userId,
      session: token,
      apiKey: key.json.key,
      apiKeyId: key.json.id,
      req: (method, path, options = {}) => request(method, path, { auth: key.json.key, ...options }),
      sreq
    }
  }

  return {
    baseUrl,
    config,
    request,
    session,
    tenant,
    close: async () => {
      await runtime.dispose()
      rmSync(dataDir, { recursive: true, force: true })
      await database.drop()
    }
  }
}

export const uuid = () => randomUUID()
