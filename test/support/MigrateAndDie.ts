// Migrates the database named on the command line as a starting process does, and kills itself
// (SIGKILL, as the OOM killer or a power cut would stop it) right after the migration named
// second has run, inside the migrations' transaction. Prints `ran <migration>` just before.
import type { SqlClient } from "@effect/sql"
import { Effect, type Layer } from "effect"
import { writeSync } from "node:fs"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"
import { type Migrations, migrateWith } from "../../adapters/sql/Migrate.js"
import { migrations } from "../../adapters/sql/migrations/index.js"
import * as SqliteStorage from "../../adapters/sqlite/SqliteStorage.js"

const [url = "", key = ""] = process.argv.slice(2)
const record: Migrations = { ...migrations }
const last = record[key]
if (last === undefined) throw new Error(`no migration ${key}`)
record[key] = Effect.zipRight(last, Effect.sync(() => {
  writeSync(1, `ran ${key}\n`)
  process.kill(process.pid, "SIGKILL")
}))
const client: Layer.Layer<SqlClient.SqlClient, unknown> = url.startsWith("sqlite:") ? SqliteStorage.client(url.slice("sqlite:".length)) : PostgresStorage.client(url, 2)
Effect.runPromise(migrateWith(record).pipe(Effect.provide(client), Effect.scoped)).then(
  () => writeSync(1, "completed\n"),
  (error: unknown) => writeSync(1, `failed: ${String(error)}\n`)
)
