import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Effect, Layer, Schedule } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { camelToSnake, snakeToCamel } from "../sql/NameCase.js"
import * as SqlStorage from "../sql/SqlStorage.js"

/** A SQLite connection set up for durability (WAL, full fsync on commit, foreign keys, a busy timeout) and large reads. */
export const client = (filename: string) =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("PRAGMA synchronous = FULL")
      yield* sql.unsafe("PRAGMA foreign_keys = ON")
      yield* sql.unsafe("PRAGMA busy_timeout = 5000")
      // Reads of a large catalog jump between index and table pages: map the file instead of
      // copying each page through a read call, keep more pages cached, and sort in memory.
      yield* sql.unsafe("PRAGMA mmap_size = 1073741824")
      yield* sql.unsafe("PRAGMA cache_size = -65536")
      yield* sql.unsafe("PRAGMA temp_store = MEMORY")
      // A bulk batch writes thousands of pages: checkpoint every 64 MiB of log, not after
      // almost every batch (each checkpoint is another fsync of the database file).
      yield* sql.unsafe("PRAGMA wal_autocheckpoint = 16384")
      // The planner picks indexes by statistics SQLite only gathers when asked: refresh them
      // (bounded work) at start and every few minutes, as the catalog grows.
      yield* sql.unsafe("PRAGMA analysis_limit = 1000")
      const optimize = sql.unsafe("PRAGMA optimize = 0x10002").pipe(Effect.ignoreLogged)
      yield* optimize
      // Wall-clock time, whatever clock the caller runs on: this is upkeep, not behaviour.
      yield* Effect.forkScoped(Effect.schedule(optimize, Schedule.spaced("1 minute")).pipe(Effect.withClock(Clock.make())))
    }).pipe(Effect.orDie)
  ).pipe(
    Layer.provideMerge(
      Layer.unwrapEffect(
        Effect.sync(() => {
          if (filename !== ":memory:") mkdirSync(dirname(filename), { recursive: true })
          return SqliteClient.layer({ filename, transformQueryNames: camelToSnake, transformResultNames: snakeToCamel })
        })
      )
    )
  )

/** Every storage port on a SQLite file (or `:memory:`), migrated. */
export const layer = (filename: string) => SqlStorage.fromClient(client(filename))
