import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, Exit, type Layer, Redacted, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase } from "./Postgres.js"

/** A database for test hosts, which they reach by `url`; `query` reads it directly, as its owner. */
export interface TestDatabase {
  readonly url: string
  readonly query: (statement: string) => Promise<ReadonlyArray<Record<string, unknown>>>
  readonly drop: () => Promise<void>
}

/** Which database test hosts run on: `CATALOG_TEST_HOST_DATABASE`, `sqlite` (the default) or `postgres`. */
export const hostDatabaseKind = (): "sqlite" | "postgres" => {
  const kind = process.env.CATALOG_TEST_HOST_DATABASE ?? "sqlite"
  if (kind === "sqlite" || kind === "postgres") return kind
  throw new Error(`CATALOG_TEST_HOST_DATABASE must be sqlite or postgres, not ${kind}`)
}

const querying = (client: Layer.Layer<SqlClient.SqlClient, unknown>) => (statement: string) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(statement)).pipe(Effect.provide(client)))
  )

/** A fresh Postgres database of its own, dropped by `drop`. */
export const postgresDatabase = async (): Promise<TestDatabase> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(freshDatabase, scope))
  return {
    url,
    query: querying(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
    drop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** A database that outlives the host on it, so that another host can start on it again. */
export const persistentTestDatabase = async (): Promise<TestDatabase> => {
  if (hostDatabaseKind() === "postgres") return postgresDatabase()
  const dir = mkdtempSync(join(tmpdir(), "catalog-db-"))
  const filename = join(dir, "catalog.db")
  return {
    url: `sqlite:${filename}`,
    query: querying(SqliteClient.layer({ filename })),
    drop: async () => rmSync(dir, { recursive: true, force: true })
  }
}

/** The database of one host: SQLite `:memory:`, or on Postgres a fresh database. */
export const hostTestDatabase = async (): Promise<Pick<TestDatabase, "url" | "drop">> =>
  hostDatabaseKind() === "postgres" ? postgresDatabase() : { url: "sqlite::memory:", drop: async () => {} }
