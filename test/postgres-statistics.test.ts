import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"
import { eventually } from "./support/Eventually.js"

const available = await postgresAvailable()

const Analyzed = Schema.Array(Schema.Struct({ analyzed: Schema.Boolean }))

describe.runIf(available)("postgres: planner statistics", () => {
  it.live("are gathered for a table soon after a bulk write", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const storage = yield* Layer.build(PostgresStorage.layer(url, 2))
      const sql = yield* Effect.provide(SqlClient.SqlClient, storage)
      const uow = yield* Effect.provide(UnitOfWork, storage)
      yield* uow.system(sql`insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at)
        select gen_random_uuid(), gen_random_uuid(), 'product.created', 'product', g::text, 'system', 'bulk', '{}', '2026-01-01'
        from generate_series(1, 5000) g`)
      const analyzed = sql`select last_analyze is not null as analyzed from pg_stat_user_tables where relname = 'events'`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Analyzed)),
        Effect.map((rows) => rows[0]?.analyzed === true)
      )
      expect(yield* eventually(analyzed)).toBe(true)
    }).pipe(Effect.scoped), 60_000)
})
