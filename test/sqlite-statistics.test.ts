import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { eventually } from "./support/Eventually.js"
import { upTo } from "./support/MigrateUpTo.js"

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
  it.live("are gathered for the indexes a migration makes on a file that has statistics", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "catalog-stat-"))
      const file = join(dir, "catalog.db")
      const open = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
        Effect.scoped(Effect.flatMap(Layer.build(SqliteStorage.layer(file)), (storage) => Effect.flatMap(Effect.provide(SqlClient.SqlClient, storage), f)))
      // A file analyzed before the indexes of migration 26 existed, as one upgraded to it.
      yield* Effect.scoped(Effect.gen(function*() {
        const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(SqliteStorage.client(file)))
        yield* Effect.provideService(upTo(25), SqlClient.SqlClient, sql)
        yield* sql`with recursive g(i) as (select 1 union all select i + 1 from g where i < 2000)
          insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at)
          select 'e' || i, 'org', 'product.created', 'product', i, 'system', 'bulk', '{}', '2026-01-01' from g`
        yield* sql.unsafe("ANALYZE")
      }))
      const analyzed = yield* open((sql) =>
        sql`select idx from sqlite_stat1 where idx = 'events_org_type'`.pipe(
          Effect.map((rows) => rows.map((r) => r.idx))
        )
      )
      rmSync(dir, { recursive: true, force: true })
      expect(analyzed).toEqual(["events_org_type"])
    }).pipe(Effect.orDie), 60_000)
})
