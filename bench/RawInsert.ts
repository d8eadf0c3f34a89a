import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect, type Layer, Redacted } from "effect"
import { join } from "node:path"

export interface RawRow {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly status: string
  readonly attributes: string
  readonly tags: string
}

const insertAll = (rows: ReadonlyArray<RawRow>, batch: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
    yield* sql.unsafe(`CREATE TABLE raw_products (id text PRIMARY KEY, name text, slug text, status text, attributes ${json}, tags ${json}, created_at text, updated_at text)`)
    const now = new Date().toISOString()
    const started = performance.now()
    for (let i = 0; i < rows.length; i += batch) {
      const chunk = rows.slice(i, i + batch).map((r) => ({ ...r, created_at: now, updated_at: now }))
      yield* sql.withTransaction(sql`insert into raw_products ${sql.insert(chunk)}`)
    }
    return (performance.now() - started) / 1000
  })

const sqlite = (dir: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  SqliteClient.layer({ filename: join(dir, "raw.db") })

const postgres = (url: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })

/**
 * The floor for bulk import: the same rows as one multi-row INSERT per batch, straight through
 * the driver, with no validation, events or search index. Answers the seconds it took.
 */
export const rawInsert = (target: { readonly sqliteDir: string } | { readonly postgresUrl: string }, rows: ReadonlyArray<RawRow>, batch: number) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.onDialectOrElse({
        pg: () => Effect.void,
        orElse: () => Effect.zipRight(sql.unsafe("PRAGMA journal_mode = WAL"), sql.unsafe("PRAGMA synchronous = FULL"))
      })
      const seconds = yield* insertAll(rows, batch)
      yield* sql.unsafe("DROP TABLE raw_products")
      return seconds
    }).pipe(Effect.provide("sqliteDir" in target ? sqlite(target.sqliteDir) : postgres(target.postgresUrl)), Effect.orDie)
  )
