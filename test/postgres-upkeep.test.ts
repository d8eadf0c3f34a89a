import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"
import { eventually } from "./support/Eventually.js"

const available = await postgresAvailable()

const Maintained = Schema.Array(Schema.Struct({ analyzed: Schema.Boolean, vacuumed: Schema.Boolean, allVisible: Schema.Boolean }))

describe.runIf(available)("postgres: table upkeep", () => {
  it.live("vacuums and analyzes a table soon after a bulk write, whether or not autovacuum runs", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const storage = yield* Layer.build(PostgresStorage.layer(url, 2))
      const sql = yield* Effect.provide(SqlClient.SqlClient, storage)
      const uow = yield* Effect.provide(UnitOfWork, storage)
      yield* uow.system(sql`insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at)
        select gen_random_uuid(), gen_random_uuid(), 'product.created', 'product', g::text, 'system', 'bulk', '{}', '2026-01-01'
        from generate_series(1, 5000) g`)
      // Statistics for the planner, and the new rows' pages marked all-visible for index-only scans.
      const maintained = sql`select coalesce(last_analyze, last_autoanalyze) is not null as analyzed,
          coalesce(last_vacuum, last_autovacuum) is not null as vacuumed, c.relallvisible > 0 as all_visible
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'events'`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Maintained)),
        Effect.map((rows) => rows[0]?.analyzed === true && rows[0].vacuumed && rows[0].allVisible)
      )
      expect(yield* eventually(maintained)).toBe(true)
    }).pipe(Effect.scoped), 60_000)
})
