import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminUrl, postgresAvailable } from "../support/Postgres.js"
import { startTestHost, type TestHost } from "../support/TestHost.js"

const available = await postgresAvailable()

const admin = (statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 }))
    )
  )

describe.runIf(available)("when the database goes away", () => {
  const name = `catalog_test_${randomBytes(6).toString("hex")}`
  let host: TestHost
  beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    host = await startTestHost({ databaseUrl: url.toString() })
  })
  afterAll(async () => {
    await host.close()
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  })

  it("answers 500 internal with nothing else, and /readyz 503", async () => {
    const t = await host.tenant()
    expect((await t.req("GET", "/v1/api-keys")).status).toBe(200)
    await admin(`DROP DATABASE ${name} WITH (FORCE)`)
    const r = await t.sreq("GET", "/v1/api-keys")
    expect(r.status).toBe(500)
    expect(r.json).toEqual({ error: { code: "internal", message: "internal server error" } })
    const ready = await host.request("GET", "/readyz")
    expect(ready.status).toBe(503)
    expect(ready.json.error.code).toBe("unavailable")
    const health = await host.request("GET", "/healthz")
    expect(health.status).toBe(200)
  })
})
