import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { Readiness } from "../../core/shared/Readiness.js"

export const layer = Layer.effect(
  Readiness,
  Effect.map(SqlClient.SqlClient, (sql) =>
    Readiness.of({
      check: sql`select 1 as ok`.pipe(
        Effect.timeout(Duration.seconds(2)),
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false)),
        Effect.catchAllDefect(() => Effect.succeed(false))
      )
    }))
)
