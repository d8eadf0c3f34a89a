import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { StorageUnavailable } from "../core/shared/Errors.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { postgresAvailable } from "./support/Postgres.js"
import { type OwnerConnection, ownerConnection } from "./support/OwnerConnection.js"
import { startTcpProxy, type TcpProxy } from "./support/TcpProxy.js"
import { postgresDatabase, type TestDatabase } from "./support/TestDatabase.js"
import { startTestHost, type TestHost, type TestTenant } from "./support/TestHost.js"

const available = await postgresAvailable()

/** `url` with its host and port replaced by the proxy's. */
const through = (url: string, proxy: TcpProxy) => {
  const u = new URL(url)
  u.hostname = "127.0.0.1"
  u.port = String(proxy.port)
  return u.toString()
}
const targetOf = (url: string) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || 5432) })

/**
 * Postgres going away after start-up, behind a proxy the test controls: a request then answers
 * 503 `unavailable`, which a client may try again, not a 500, and the service serves again
 * once Postgres is back.
 */
describe.runIf(available)("postgres: the database goes away after start-up", () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let host: TestHost
  let t: TestTenant
  let familyId: string
  beforeAll(async () => {
    db = await postgresDatabase()
    proxy = await startTcpProxy(targetOf(db.url))
    host = await startTestHost({ databaseUrl: through(db.url, proxy) })
    t = await host.tenant()
    familyId = (await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json.id
  }, 60_000)
  afterAll(async () => {
    await host?.close()
    await proxy?.close()
    await db?.drop()
  })

  it("answers 503 unavailable while Postgres refuses connections, and serves again once it is back", async () => {
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "Before" } })).status).toBe(201)
    proxy.mode("reset")
    const unavailable = { error: { code: "unavailable", message: "the database does not answer" } }
    for (const [method, path, body] of [["GET", "/v1/products"], ["POST", "/v1/products", { familyId, name: "During" }], ["GET", "/v1/audit-log"]] as const) {
      const r = await t.req(method, path, body === undefined ? {} : { body })
      expect([method, path, r.status, r.json]).toEqual([method, path, 503, unavailable])
    }
    // Credentials are resolved from the database too: a session's membership, a key not seen yet.
    expect([(await t.sreq("GET", "/v1/products")).json, (await host.request("GET", "/v1/me", { auth: `pim_${"B".repeat(43)}` })).json])
      .toEqual([unavailable, unavailable])
    expect((await host.request("GET", "/readyz")).status).toBe(503)
    expect((await host.request("GET", "/healthz")).status).toBe(200)
    proxy.mode("forward")
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "After" } })).status).toBe(201)
    const names = (await t.req("GET", "/v1/products?sortBy=name")).json.data.map((p: { name: string }) => p.name)
    expect(names).toEqual(["After", "Before"])
    expect((await host.request("GET", "/readyz")).status).toBe(200)
  }, 60_000)
})

/** The catalog as an application embeds it, on Postgres through `proxy`, giving a new connection 1 s. */
const catalogThrough = (url: string, proxy: TcpProxy) => catalogOver(PostgresStorage.layer(through(url, proxy), 2, "1 second"))

describe.runIf(available)("postgres: a database that stops answering after start-up", () => {
  let db: TestDatabase
  let proxy: TcpProxy
  let runtime: ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof catalogThrough>>, unknown>
  beforeAll(async () => {
    db = await postgresDatabase()
    proxy = await startTcpProxy(targetOf(db.url))
    runtime = ManagedRuntime.make(catalogThrough(db.url, proxy))
    await runtime.runPromise(UnitOfWork)
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
    await proxy?.close()
    await db?.drop()
  })

  // Before, the pool's new connection waited for an answer that never came: the read hung for good.
  it("gives up on a new connection after the connect timeout, with StorageUnavailable", async () => {
    const { organization } = await runtime.runPromise(newTenant)
    const read = Effect.flatMap(UnitOfWork, (uow) =>
      uow.tenant(organization.id, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select 1 as one`)))
    expect(await runtime.runPromise(read.pipe(Effect.orDie))).toEqual([{ one: 1 }])
    proxy.mode("silent")
    const exit = await runtime.runPromiseExit(read.pipe(Effect.orDie))
    expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toBeInstanceOf(StorageUnavailable)
    proxy.mode("forward")
    expect(await runtime.runPromise(read.pipe(Effect.orDie))).toEqual([{ one: 1 }])
  }, 60_000)
})

/**
 * A statement Postgres cancels for a `lock_timeout` an operator set on the database: 503
 * `unavailable` saying so, with nothing written, where it was a 500.
 */
describe.runIf(available)("postgres: a statement cancelled for its lock timeout", () => {
  let db: TestDatabase
  let host: TestHost
  let t: TestTenant
  let familyId: string
  let owner: OwnerConnection
  beforeAll(async () => {
    db = await postgresDatabase()
    await db.query(`alter database ${new URL(db.url).pathname.slice(1)} set lock_timeout = '300ms'`)
    host = await startTestHost({ databaseUrl: db.url })
    t = await host.tenant()
    familyId = (await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json.id
    owner = ownerConnection(db.url)
  }, 60_000)
  afterAll(async () => {
    await host?.close()
    await owner?.close()
    await db?.drop()
  })

  /** Holds the products table's exclusive lock from another connection until the answer is called. */
  const holdLock = () => owner.hold((sql) => sql`lock table products in access exclusive mode`)

  it("answers 503 unavailable, having written nothing, and writes once the lock is free", async () => {
    const release = await holdLock()
    try {
      const r = await t.req("POST", "/v1/products", { body: { familyId, name: "Refused" } })
      expect([r.status, r.json]).toEqual([503, { error: { code: "unavailable", message: "the database did not answer in time" } }])
    } finally {
      await release()
    }
    expect((await t.req("POST", "/v1/products", { body: { familyId, name: "Written" } })).status).toBe(201)
    const names = (await t.req("GET", "/v1/products")).json.data.map((p: { name: string }) => p.name)
    expect(names).toEqual(["Written"])
    expect((await t.req("GET", "/v1/audit-log?entity_type=product")).json.data.map((e: { name: string }) => e.name)).toEqual(["product.created"])
  }, 60_000)
})
