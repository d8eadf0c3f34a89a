import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String })))

/** Which of `values` already stand in `column` of the organization's rows of `table` (ids that exist, slugs taken). */
export const presentValues = (
  sql: SqlClient.SqlClient,
  table: string,
  column: string,
  organizationId: string,
  values: ReadonlyArray<string>
): Effect.Effect<Set<string>> =>
  values.length === 0
    ? Effect.succeed(new Set<string>())
    : sql`select ${sql(column)} as value from ${sql(table)} where organization_id = ${organizationId} and ${sql.in(column, values)}`.pipe(
      Effect.flatMap(ValueRows),
      Effect.map((rows) => new Set(rows.map((r) => r.value))),
      Effect.orDie
    )
