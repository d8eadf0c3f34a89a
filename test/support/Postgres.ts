import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"

/** The server tests create their databases on; each test file gets a fresh database. */
export const adminUrl = process.env.CATALOG_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const withDatabase = (url: string, name: string) => {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

const admin = PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })

/** Whether the test server answers. With CI=true an unreachable server fails the run instead. */
export const postgresAvailable = async (): Promise<boolean> => {
  const ok = await Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`select 1`
      return true
    }).pipe(Effect.provide(admin), Effect.timeout("5 seconds"), Effect.orElseSucceed(() => false), Effect.catchAllDefect(() => Effect.succeed(false)))
  )
  if (!ok) {
    if (process.env.CI === "true") throw new Error(`Postgres at ${adminUrl} is unreachable and CI=true: the Postgres suites must run`)
    console.warn(`\n!!! Postgres at ${adminUrl} is unreachable: SKIPPING the Postgres suites (set CATALOG_TEST_DATABASE_URL) !!!\n`)
  }
  return ok
}

/**
 * A database `catalog_test_<random>` for the life of the layer, dropped afterwards; answers its
 * URL. `options` are those of `CREATE DATABASE` (a locale, say).
 */
export const freshDatabaseWith = (options: string) => Effect.acquireRelease(
  Effect.gen(function*() {
    const name = `catalog_test_${randomBytes(6).toString("hex")}`
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE DATABASE ${name} ${options}`)
    return name
  }).pipe(Effect.provide(admin), Effect.orDie),
  (name) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }).pipe(Effect.provide(admin), Effect.orDie)
).pipe(Effect.map((name) => withDatabase(adminUrl, name)))

export const freshDatabase = freshDatabaseWith("")

/**
 * A login role `catalog_owner_<random>` with `attributes` (`CREATEROLE BYPASSRLS`, say) for the
 * life of the scope, and a fresh database it owns; answers the database's URL as that role.
 */
export const freshOwnedDatabase = (attributes: string) =>
  Effect.gen(function*() {
    const role = `catalog_owner_${randomBytes(6).toString("hex")}`
    const asAdmin = (statement: string) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin), Effect.orDie)
    // Made before its database, so dropped after it.
    yield* Effect.acquireRelease(asAdmin(`CREATE ROLE ${role} LOGIN ${attributes}`), () => asAdmin(`DROP ROLE IF EXISTS ${role}`))
    const url = new URL(yield* freshDatabaseWith(`OWNER ${role}`))
    url.username = role
    return url.toString()
  })

/** Every storage port on a fresh, migrated Postgres database. */
export const postgresStorage = Layer.unwrapScoped(Effect.map(freshDatabase, (url) => PostgresStorage.layer(url, 5)))

/** A raw client on a fresh database, for tests below the storage ports. */
export const postgresClient = Layer.unwrapScoped(Effect.map(freshDatabase, (url) => PostgresStorage.client(url, 5)))
