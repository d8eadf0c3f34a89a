import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { eventually } from "./support/Eventually.js"

const Counts = Schema.Array(Schema.Struct({ n: Schema.Number }))

describe("sqlite: planner statistics", () => {
  it.live("are gathered for a table soon after a bulk write", () =>
    Effect.gen(function*() {
      const storage = yield* Layer.build(SqliteStorage.layer(":memory:"))
      const sql = yield* Effect.provide(SqlClient.SqlClient, storage)
      const uow = yield* Effect.provide(UnitOfWork, storage)
      const count = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
        statement.pipe(Effect.flatMap(Schema.decodeUnknown(Counts)), Effect.map(([row]) => row?.n ?? 0), Effect.orDie)
      // sqlite_stat1 exists once anything was analyzed.
      const analyzed = count(sql`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`).pipe(
        Effect.flatMap((tables) => (tables === 0 ? Effect.succeed(0) : count(sql`select count(*) as n from sqlite_stat1 where tbl = 'events'`))),
        Effect.map((n) => n > 0)
      )
      expect(yield* analyzed).toBe(false)
      yield* uow.system(sql`with recursive g(i) as (select 1 union all select i + 1 from g where i < 5000)
        insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at)
        select 'e' || i, 'org', 'product.created', 'product', i, 'system', 'bulk', '{}', '2026-01-01' from g`)
      expect(yield* eventually(analyzed)).toBe(true)
    }).pipe(Effect.scoped), 60_000)
})
