import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Schedule, Schema } from "effect"
import { IntColumn } from "./Columns.js"
import { migrations } from "./migrations/index.js"
import { isLockedElsewhere } from "./SqlErrors.js"

/** The migrator's own record of what ran. */
const TABLE = "effect_sql_migrations"

/** A set of migrations by id, `<number>_<name>`, as `migrations/index.ts` lists them. */
export type Migrations = Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>

const newestOf = (record: Migrations) => Math.max(...Object.keys(record).map((key) => Number(key.split("_")[0])))

/** The newest migration this version knows. */
export const latestKnownMigration = newestOf(migrations)

/** The database was migrated by a newer version of the service: this one would run on a schema it does not know. */
export class DatabaseTooNew extends Schema.TaggedError<DatabaseTooNew>()("DatabaseTooNew", {
  latest: Schema.Number,
  known: Schema.Number
}) {
  override get message() {
    return `the database was migrated by a newer version of the service (migration ${this.latest}; this version knows up to ${this.known})`
  }
}

/**
 * The migrator could not record the migrations it was about to run (a full disk, a timeout):
 * it ran none of them, and took the failure for another process running them. This one would
 * go on with the schema as it was.
 */
export class MigrationsNotRecorded extends Schema.TaggedError<MigrationsNotRecorded>()("MigrationsNotRecorded", {
  latest: Schema.Number,
  known: Schema.Number
}) {
  override get message() {
    return `the migrations could not be recorded: the database stays at migration ${this.latest}, this version needs ${this.known}`
  }
}

const Latest = Schema.Array(Schema.Struct({ latest: Schema.NullOr(IntColumn) }))

const isBusy = (error: unknown) => error instanceof SqlError && isLockedElsewhere(error)

/** `migrate` over the given migrations instead of this version's. */
export const migrateWith = (record: Migrations) => Effect.gen(function*() {
  const known = newestOf(record)
  const runPending = Migrator.make({})({ loader: Migrator.fromRecord(record) })
  const sql = yield* SqlClient.SqlClient
  const isPostgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const createTable = sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE IF NOT EXISTS ${sql(TABLE)} (migration_id integer primary key, created_at timestamp with time zone not null default now(), name text not null)`,
    orElse: () =>
      sql`CREATE TABLE IF NOT EXISTS ${sql(TABLE)} (migration_id integer PRIMARY KEY NOT NULL, created_at datetime NOT NULL DEFAULT current_timestamp, name VARCHAR(255) NOT NULL)`
  })
  // SQLite makes the table outside the transaction, so that the transaction's first statement
  // is a write: it then waits for the lock instead of reading a snapshot that another
  // process's commit would make stale.
  const prepare = isPostgres ? Effect.void : Effect.asVoid(createTable)
  const turn = isPostgres
    ? Effect.zipRight(sql`select pg_advisory_xact_lock(hashtextextended('catalog:migrations', 0))`, createTable)
    : sql`delete from ${sql(TABLE)} where 1 = 0`
  const recorded = sql`select max(migration_id) as latest from ${sql(TABLE)}`.withoutTransform.pipe(
    Effect.flatMap(Schema.decodeUnknown(Latest)),
    Effect.map(([row]) => row?.latest ?? 0),
    Effect.catchTag("ParseError", Effect.die)
  )
  const run = sql.withTransaction(Effect.gen(function*() {
    yield* turn
    const latest = yield* recorded
    if (latest > known) return yield* new DatabaseTooNew({ latest, known })
    const applied = yield* runPending
    // Holding the turn, no other process can be running them: the migrator's "already running"
    // is a failure to write its record.
    if ((yield* recorded) < known) return yield* new MigrationsNotRecorded({ latest, known })
    return applied
  }))
  // Another process migrating SQLite holds the lock longer than the busy timeout: wait for it in further turns.
  return yield* Effect.zipRight(prepare, run).pipe(Effect.retry({ while: isBusy, schedule: Schedule.spaced("1 second"), times: 600 }))
})

/**
 * Runs every pending migration, one process at a time. Processes that start together on one
 * database (two hosts, a host and an app embedding the catalog) take turns: the first applies
 * the migrations in one transaction, the others wait for it and then find nothing to do. The
 * migrator alone would let them race: on Postgres its check-then-create of its table failed
 * on the loser's `CREATE TABLE`, and on SQLite a process that could not record its run went
 * on as if migrated while the other was still at work. A database that a newer version has
 * migrated is refused: this version does not know its schema.
 */
export const migrate = migrateWith(migrations)
