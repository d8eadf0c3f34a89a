import { SqlClient } from "@effect/sql"
import { Clock, Duration, Effect, Layer, Schema } from "effect"

const Stale = Schema.decodeUnknown(Schema.Array(Schema.Struct({ relname: Schema.String })))

/**
 * Analyzes the tables whose rows changed much since their last statistics, as autovacuum
 * would: right after a bulk import Postgres otherwise plans every catalog read as if the
 * tables were nearly empty, until autovacuum comes round (never, where it is turned off).
 * A table another process is analyzing is skipped.
 */
export const keepStatistics = (interval: Duration.DurationInput = Duration.seconds(5)) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const round = sql`select relname from pg_stat_user_tables
        where schemaname = current_schema() and n_mod_since_analyze > 1000 + 0.1 * n_live_tup`.pipe(
      Effect.flatMap(Stale),
      Effect.flatMap((tables) => Effect.forEach(tables, ({ relname }) => sql`analyze (skip_locked) ${sql(relname)}`, { discard: true })),
      Effect.catchAllCause((cause) => Effect.logWarning("refreshing planner statistics failed", cause))
    )
    // Wall-clock time, whatever clock the caller runs on: this is upkeep, not behaviour (under
    // a test clock moved on by years, it would wake once per interval in between).
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(interval), round)).pipe(Effect.withClock(Clock.make())))
  }))
