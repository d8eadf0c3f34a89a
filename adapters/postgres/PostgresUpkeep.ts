import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Schema } from "effect"

const Due = Schema.decodeUnknown(Schema.Array(Schema.Struct({ relname: Schema.String, vacuum: Schema.Boolean })))

/**
 * Vacuums and analyzes the tables that need it, as autovacuum would, for the databases where
 * it is turned off or slow to come round: right after a bulk import Postgres otherwise plans
 * every catalog read as if the tables were nearly empty, and, with no page of the new rows
 * marked all-visible, an index-only scan (facets count whole organizations with them) reads
 * every row's page as well. The thresholds are autovacuum's defaults, but for inserts: a
 * vacuum is due after 5% new rows instead of 20%, so at most that share of a catalog is left
 * unmarked after an import; a vacuum after inserts only reads the pages not yet marked.
 * A table another process is vacuuming or analyzing is skipped.
 */
export const keepTablesMaintained = (interval: Duration.DurationInput = Duration.seconds(5)) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const round = sql`select relname,
          n_ins_since_vacuum > 1000 + 0.05 * n_live_tup or n_dead_tup > 50 + 0.2 * n_live_tup as vacuum
        from pg_stat_user_tables
        where schemaname = current_schema()
          and (n_mod_since_analyze > 1000 + 0.1 * n_live_tup
            or n_ins_since_vacuum > 1000 + 0.05 * n_live_tup
            or n_dead_tup > 50 + 0.2 * n_live_tup)`.pipe(
      Effect.flatMap(Due),
      Effect.flatMap((tables) =>
        Effect.forEach(
          tables,
          ({ relname, vacuum }) => vacuum ? sql`vacuum (analyze, skip_locked) ${sql(relname)}` : sql`analyze (skip_locked) ${sql(relname)}`,
          { discard: true }
        )
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("vacuuming or analyzing tables failed", cause))
    )
    // Wall-clock time, whatever clock the caller runs on: this is upkeep, not behaviour (under
    // a test clock moved on by years, it would wake once per interval in between).
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(interval), round)).pipe(Effect.withClock(Clock.make())))
  }))
