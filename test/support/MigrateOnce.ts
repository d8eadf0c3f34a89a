// Migrates the database named on the command line, as a process starting up does, and prints
// how many migrations it applied and how many it then sees recorded, as JSON. It prints `ready`
// once loaded and starts when a line arrives on its standard input, so that several start at once.
import { SqlClient } from "@effect/sql"
import { Effect, type Layer, Schema } from "effect"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"
import { IntColumn } from "../../adapters/sql/Columns.js"
import { migrate } from "../../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../../adapters/sqlite/SqliteStorage.js"

const url = process.argv[2] ?? ""
const client: Layer.Layer<SqlClient.SqlClient, unknown> = url.startsWith("sqlite:") ? SqliteStorage.client(url.slice("sqlite:".length)) : PostgresStorage.client(url, 2)
const program = Effect.gen(function*() {
  const applied = yield* migrate
  const sql = yield* SqlClient.SqlClient
  const [seen] = yield* sql`select count(*) as n from effect_sql_migrations`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn }))))
  )
  return { applied: applied.length, seen: seen?.n ?? 0 }
})
console.log("ready")
process.stdin.once("data", () =>
  Effect.runPromise(program.pipe(Effect.provide(client))).then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => {
    console.log(JSON.stringify({ error: String(error).split("\n")[0] }))
    process.exitCode = 1
  }
).finally(() => process.stdin.destroy()))
