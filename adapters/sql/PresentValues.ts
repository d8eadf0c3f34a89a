import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"

const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String })))

/** Which of `values` already stand in `column` of the organization's rows of `table` (ids that exist, slugs taken). */
export const presentValues = (
  sql: SqlClient.SqlClient,
  table: string,
  column: string,
  organizationId: string,
  values: ReadonlyArray<string>,
  lock = ""
): Effect.Effect<Set<string>> =>
  values.length === 0
    ? Effect.succeed(new Set<string>())
    : sql`select ${sql(column)} as value from ${sql(table)} where organization_id = ${organizationId} and ${sql.in(column, values)}${
      sql.literal(lock)
    }`.pipe(
      Effect.flatMap(ValueRows),
      Effect.map((rows) => new Set(rows.map((r) => r.value))),
      Effect.orDie
    )

/**
 * Which of `ids` are the organization's rows of `table`, each held until the transaction
 * ends so that a write pointing at them never points at a row deleted meanwhile: on Postgres
 * a concurrent delete waits (`FOR KEY SHARE`, the lock a foreign key check takes); SQLite
 * writes one transaction at a time.
 */
export const heldIds = (sql: SqlClient.SqlClient, table: string, organizationId: string, ids: ReadonlyArray<string>) =>
  presentValues(sql, table, "id", organizationId, ids, sql.onDialectOrElse({ pg: () => " for key share", orElse: () => "" }))

/**
 * Waits for the writes that hold the row (see `heldIds`) to commit, and holds it from then on,
 * so that what a delete clears first (copies of the row's id elsewhere) includes their rows.
 */
export const holdForDelete = (sql: SqlClient.SqlClient, table: string, organizationId: string, id: string): Effect.Effect<void> =>
  sql.onDialectOrElse({
    pg: () => Effect.orDie(Effect.asVoid(sql`select id from ${sql(table)} where organization_id = ${organizationId} and id = ${id} for update`)),
    orElse: () => Effect.void
  })

/**
 * Holds the organization's products that `which` (a condition over `products`) picks until the
 * transaction ends, locking their rows in id order. Every write that holds several products'
 * rows (a bulk batch, a brand's or a category's deletion) takes them so before it reads or
 * writes them: in different orders, two such writes waited for each other in a cycle, which
 * Postgres breaks only after `deadlock_timeout` by aborting one. SQLite writes one transaction
 * at a time.
 */
export const holdProducts = (sql: SqlClient.SqlClient, organizationId: string, which: Fragment): Effect.Effect<void> =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.orDie(Effect.asVoid(sql`select id from products where organization_id = ${organizationId} and ${which} order by id for no key update`)),
    orElse: () => Effect.void
  })
