import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"
import { latestKnownMigration } from "../../adapters/sql/Migrate.js"
import { migrate } from "../../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../../adapters/sqlite/SqliteStorage.js"
import { catalogLayer, MemoryWebhookSender, Organizations } from "../../index.js"
import { freshDatabase, postgresAvailable } from "../support/Postgres.js"
import { freePort } from "../support/Ports.js"

const root = resolve(import.meta.dirname, "../..")
const withPostgres = await postgresAvailable()
const dir = mkdtempSync(join(tmpdir(), "catalog-startup-"))
const aFile = join(dir, "a-file")
writeFileSync(aFile, "")
const servers: Array<Server> = []
afterAll(() => {
  servers.forEach((s) => s.close())
  rmSync(dir, { recursive: true, force: true })
})

/** A port something already listens on, taking connections and never answering them. */
const listening = () =>
  new Promise<number>((done) => {
    const srv = createServer((socket) => socket.resume())
    servers.push(srv)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      done(typeof address === "object" && address !== null ? address.port : 0)
    })
  })

/** Starts the host as `npm start` does and answers how it ended and what it printed. */
const start = (env: Record<string, string>) =>
  new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", "hosts/http/main.ts"], {
      cwd: root,
      env: { ...process.env, HOST: "127.0.0.1", DATABASE_URL: "sqlite::memory:", CATALOG_DATA_DIR: dir, LOG_LEVEL: "error", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString()))
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), 100_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      done({ code, output })
    })
  })

describe("start-up on an unusable database, address or data folder", () => {
  it("stops with one line naming the variable, not a trace", async () => {
    const taken = await listening()
    const pgSilent = await listening()
    const [pgDown, ...free] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()])
    const runs = await Promise.all([
      start({ PORT: String(free[0]), DATABASE_URL: `postgres://postgres@127.0.0.1:${pgDown}/catalog` }),
      start({ PORT: String(free[4]), DATABASE_URL: `postgres://postgres@127.0.0.1:${pgSilent}/catalog` }),
      start({ PORT: String(free[1]), DATABASE_URL: `sqlite:${join(aFile, "catalog.db")}` }),
      start({ PORT: String(free[2]), DATABASE_URL: `sqlite:${dir}` }),
      start({ PORT: String(taken) }),
      start({ PORT: String(free[3]), CATALOG_DATA_DIR: aFile })
    ])
    const expected = [
      /^cannot start: DATABASE_URL: the database cannot be used \(connect ECONNREFUSED .+\)$/,
      /^cannot start: DATABASE_URL: Postgres at 127\.0\.0\.1:\d+ did not answer within 10 s$/,
      /^cannot start: DATABASE_URL: the database cannot be used \(EEXIST.+\)$/,
      /^cannot start: DATABASE_URL: the database cannot be used \(unable to open database file\)$/,
      /^cannot start: HOST, PORT: cannot listen on 127\.0\.0\.1:\d+ \(listen EADDRINUSE.+\)$/,
      /^cannot start: CATALOG_DATA_DIR: cannot use .+ \(ENOTDIR.+\)$/
    ]
    runs.forEach(({ code, output }, i) => {
      expect(code).toBe(1)
      const lines = output.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(expected[i]!)
    })
  }, 120_000)
})

/** Migrates the database and records a migration one newer than this version knows, as a newer version would have. */
const migratedByANewerVersion = (client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* migrate
    yield* sql`insert into effect_sql_migrations (migration_id, name) values (${latestKnownMigration + 1}, 'from_a_newer_version')`.withoutTransform
  }).pipe(Effect.provide(client), Effect.scoped))

/** How many organizations the database holds: a host that started would have made the bootstrap one. */
const organizations = (client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select count(*) as n from organizations`).pipe(
    Effect.map((rows) => Number(rows[0]?.n)),
    Effect.provide(client),
    Effect.scoped
  ))

/** The host refuses a database a newer version migrated, and leaves it as it was. */
const refusesNewer = async (url: string, client: Layer.Layer<SqlClient.SqlClient, unknown>) => {
  await migratedByANewerVersion(client)
  const { code, output } = await start({ PORT: String(await freePort()), DATABASE_URL: url, CATALOG_TENANCY: "single" })
  expect({ code, lines: output.trim().split("\n") }).toEqual({
    code: 1,
    lines: [
      `cannot start: DATABASE_URL: the database was migrated by a newer version of the service (migration ${latestKnownMigration + 1}; this version knows up to ${latestKnownMigration})`
    ]
  })
  expect(await organizations(client)).toBe(0)
}

describe("start-up on a database a newer version migrated", () => {
  it("stops with one line naming DATABASE_URL and both versions, and writes nothing (SQLite file)", async () => {
    const filename = join(dir, "newer.db")
    await refusesNewer(`sqlite:${filename}`, SqliteStorage.client(filename))
  }, 120_000)

  it.runIf(withPostgres)("stops with one line naming DATABASE_URL and both versions, and writes nothing (Postgres)", async () => {
    await Effect.runPromise(Effect.scoped(Effect.flatMap(freshDatabase, (url) => Effect.promise(() => refusesNewer(url, PostgresStorage.client(url, 1))))))
  }, 120_000)
})

/** A SQLite file holding two organizations, as a multi-tenant deployment made them. */
const twoOrganizations = (filename: string) =>
  Effect.runPromise(Effect.gen(function*() {
    const organizations = yield* Organizations
    for (const slug of ["first", "second"]) {
      yield* organizations.create({ name: slug, slug, initialAdmin: { email: "admin@example.com" } }, { _tag: "Service" })
    }
  }).pipe(Effect.provide(catalogLayer({ storage: SqliteStorage.layer(filename), webhooks: MemoryWebhookSender.layer() }))))

describe("a single-tenant start on a database of several organizations, none with the slug", () => {
  it("stops with one line naming CATALOG_BOOTSTRAP_ORG_SLUG instead of serving one of them", async () => {
    const filename = join(dir, "several.db")
    await twoOrganizations(filename)
    const { code, output } = await start({ PORT: String(await freePort()), DATABASE_URL: `sqlite:${filename}`, CATALOG_TENANCY: "single" })
    expect({ code, lines: output.trim().split("\n") }).toEqual({
      code: 1,
      lines: [
        "cannot start: CATALOG_BOOTSTRAP_ORG_SLUG: no organization has the slug default and the database holds several: set the slug of the one to serve"
      ]
    })
  }, 120_000)
})

/** Starts the host on `port`, waits until it serves (or 100 s), stops it and answers what it printed. */
const printedUntilServing = (port: number, env: Record<string, string>) =>
  new Promise<string>((done) => {
    const { CATALOG_BOOTSTRAP_API_KEY: _, ...inherited } = process.env
    const child = spawn(process.execPath, ["--import", "tsx", "hosts/http/main.ts"], {
      cwd: root,
      env: { ...inherited, HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: "sqlite::memory:", CATALOG_DATA_DIR: dir, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString()))
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    const deadline = Date.now() + 100_000
    const poll = (): void => {
      fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false).then((serving) => {
        if (serving || Date.now() > deadline) child.kill("SIGKILL")
        else setTimeout(poll, 100)
      })
    }
    poll()
    child.once("exit", () => done(output))
  })

describe("the bootstrap API key made at the first start", () => {
  it("is printed even when LOG_LEVEL hides warnings, as it is shown only once", async () => {
    const output = await printedUntilServing(await freePort(), { CATALOG_TENANCY: "single", LOG_LEVEL: "fatal" })
    expect(output).toMatch(/it is shown only now: pim_[A-Za-z0-9_-]{43}/)
  }, 120_000)
})

/** Starts the host on `port` and answers once it serves (or has exited), with a way to stop it and what it printed. */
const serving = (port: number, env: Record<string, string>) => {
  const { CATALOG_BOOTSTRAP_API_KEY: _, ...inherited } = process.env
  const child = spawn(process.execPath, ["--import", "tsx", "hosts/http/main.ts"], {
    cwd: root,
    env: { ...inherited, HOST: "127.0.0.1", PORT: String(port), CATALOG_DATA_DIR: dir, LOG_LEVEL: "error", CATALOG_TENANCY: "single", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (c: Buffer) => (output += c.toString()))
  child.stderr.on("data", (c: Buffer) => (output += c.toString()))
  const exited = new Promise<void>((done) => child.once("exit", () => done()))
  const deadline = Date.now() + 100_000
  const up = new Promise<boolean>((done) => {
    const poll = (): void => {
      if (child.exitCode !== null) return done(false)
      fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false).then((ok) => {
        if (ok || Date.now() > deadline) done(ok)
        else setTimeout(poll, 100)
      })
    }
    poll()
  })
  return { up, output: () => output, stop: () => (child.kill("SIGKILL"), exited) }
}

const Audit = Schema.Struct({ data: Schema.Array(Schema.Struct({ name: Schema.String })) })

/** Two hosts start at once on one new database with one bootstrap key: both serve, with one organization and one key. */
const startTogether = async (databaseUrl: string) => {
  const key = `pim_${"k".repeat(43)}`
  const ports = [await freePort(), await freePort()]
  const hosts = ports.map((port) => serving(port, { DATABASE_URL: databaseUrl, CATALOG_BOOTSTRAP_API_KEY: key }))
  try {
    const up = await Promise.all(hosts.map((h) => h.up))
    expect({ up, output: hosts.map((h) => h.output()) }).toEqual({ up: [true, true], output: ["", ""] })
    const get = (port: number, path: string) =>
      fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({ status: r.status, json: await r.json() as unknown }))
    const me = await Promise.all(ports.map((port) => get(port, "/v1/me")))
    expect(me.map((r) => r.status)).toEqual([200, 200])
    expect(JSON.stringify(me[0]!.json)).toBe(JSON.stringify(me[1]!.json))
    const audit = Schema.decodeUnknownSync(Audit)((await get(ports[0]!, "/v1/audit-log?limit=100")).json)
    expect(audit.data.map((e) => e.name).sort()).toEqual(["api_key.created", "organization.created"])
  } finally {
    await Promise.all(hosts.map((h) => h.stop()))
  }
}


describe("hosts that start at the same time on one new database", () => {
  it("agree on the bootstrap organization and key (SQLite file)", () => startTogether(`sqlite:${join(dir, "together.db")}`), 120_000)

  it.runIf(withPostgres)("agree on the bootstrap organization and key (Postgres)", async () => {
    await Effect.runPromise(Effect.scoped(Effect.flatMap(freshDatabase, (url) => Effect.promise(() => startTogether(url)))))
  }, 120_000)
})
