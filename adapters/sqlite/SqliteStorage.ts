import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { SqliteClient } from "@effect/sql-sqlite-node"
import Database from "better-sqlite3"
import { Clock, Context, Effect, Layer, Option, Ref, Schedule, Schema } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { camelToSnake, snakeToCamel } from "../sql/NameCase.js"
import { isLockedElsewhere, untilUnlocked } from "../sql/SqlErrors.js"
import * as SqlStorage from "../sql/SqlStorage.js"
import * as SqliteReadConnection from "./SqliteReadConnection.js"

const Changes = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))

/**
 * The client's layer, failing with SqlError where the file cannot be opened or put in WAL mode
 * (a folder, a path that cannot be made, a read-only file): the client opens it outside any
 * `Effect.try`, so better-sqlite3's error would otherwise be a defect.
 */
const opened = <A, E, R>(filename: string, client: Layer.Layer<A, E, R>) =>
  Layer.scopedContext(
    Layer.build(client).pipe(
      Effect.catchSomeDefect((defect) =>
        defect instanceof Database.SqliteError
          ? Option.some(Effect.fail(new SqlError({ cause: defect, message: `cannot open the SQLite database ${filename}` })))
          : Option.none()
      )
    )
  )

const BUSY_TIMEOUT_MILLIS = 100

/** A SQLite connection set up for durability (WAL, full fsync on commit, foreign keys, a busy timeout) and large reads. */
export const client = (filename: string) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("PRAGMA synchronous = FULL")
      yield* sql.unsafe("PRAGMA foreign_keys = ON")
      // SQLite waits for another process's write lock by sleeping in the call, which holds the
      // event loop and every other request: it waits 100 ms here, and the unit of work waits
      // the rest between runs of the transaction, without holding anything (see SqlUnitOfWork).
      yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MILLIS}`)
      // Reads of a large catalog jump between index and table pages: map the file instead of
      // copying each page through a read call, keep more pages cached, and sort in memory.
      yield* sql.unsafe("PRAGMA mmap_size = 1073741824")
      yield* sql.unsafe("PRAGMA cache_size = -65536")
      yield* sql.unsafe("PRAGMA temp_store = MEMORY")
      // A bulk batch writes thousands of pages: checkpoint every 64 MiB of log, not after
      // almost every batch (each checkpoint is another fsync of the database file).
      yield* sql.unsafe("PRAGMA wal_autocheckpoint = 16384")
      // The planner picks indexes by statistics SQLite only gathers when asked: refresh them
      // (bounded work) once migrated (see `layer`), and whenever this connection has changed
      // more than 1,000 rows plus 10% of what it had changed at the last refresh, as a bulk
      // import does.
      yield* sql.unsafe("PRAGMA analysis_limit = 1000")
      const analyzedAt = yield* Ref.make(0)
      const refresh = sql`select total_changes() as n`.pipe(
        Effect.flatMap(Changes),
        Effect.flatMap(([row]) =>
          Ref.modify(analyzedAt, (at) => {
            const n = row?.n ?? 0
            return n - at > 1000 + 0.1 * at ? [true, n] as const : [false, at] as const
          })
        ),
        Effect.flatMap((stale) => (stale ? Effect.asVoid(sql.unsafe("ANALYZE")) : Effect.void)),
        Effect.ignoreLogged
      )
      // Wall-clock time, whatever clock the caller runs on: this is upkeep, not behaviour.
      yield* Effect.forkScoped(Effect.schedule(refresh, Schedule.spaced("5 seconds")).pipe(Effect.withClock(Clock.make())))
    })
  ).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.try({
          try: () => {
            if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
            return opened(filename, SqliteClient.layer({ filename, transformQueryNames: camelToSnake, transformResultNames: snakeToCamel }))
          },
          catch: (cause) => new SqlError({ cause, message: `cannot create the folder of ${filename}` })
        })
      )
    )
  )

/**
 * Statistics for the tables whose indexes have none, after the migrations: an index a
 * migration has just made would otherwise count as far more selective than the analyzed ones
 * beside it, and the planner would take it, sorting every product or event of an
 * organization for one page, until the next refresh. Another process that keeps the file
 * locked past the wait is writing, and made them when it migrated: this one starts without.
 */
const analyzeMigrated = (context: Context.Context<SqlClient.SqlClient>): Effect.Effect<void> =>
  Context.get(context, SqlClient.SqlClient).unsafe("PRAGMA optimize = 0x10002").pipe(
    Effect.asVoid,
    Effect.retry({ while: isLockedElsewhere, schedule: untilUnlocked }),
    Effect.catchAll((error): Effect.Effect<void> =>
      isLockedElsewhere(error)
        ? Effect.logWarning("statistics not refreshed after the migrations: the file stays locked by another process", error)
        : Effect.die(error)
    )
  )

/** Every storage port on a SQLite file (or `:memory:`), migrated. */
export const layer = (filename: string) => {
  const storage = SqlStorage.fromClient(client(filename)).pipe(Layer.tap(analyzeMigrated))
  return filename === ":memory:" ? storage : storage.pipe(Layer.provide(SqliteReadConnection.layer(filename)))
}
