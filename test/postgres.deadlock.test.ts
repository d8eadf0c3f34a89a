import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Ref, Schema } from "effect"
import * as SqlStorage from "../adapters/sql/SqlStorage.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { postgresAvailable, postgresClient } from "./support/Postgres.js"

const available = await postgresAvailable()

const Names = Schema.Array(Schema.Struct({ name: Schema.String }))

describe.runIf(available)("postgres deadlocks", () => {
  layer(SqlStorage.fromClient(postgresClient), { timeout: 60_000 })("tenant transactions", (it) => {
    it.effect("runs again the transaction Postgres aborts to break a deadlock, so both writers succeed", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const org = "01900000-0000-7000-8000-0000000000d1"
        const [one, two] = ["01900000-0000-7000-8000-0000000000e1", "01900000-0000-7000-8000-0000000000e2"]
        yield* sql`insert into organizations ${sql.insert({ id: org, name: "Org", slug: "deadlock", createdAt: "t", updatedAt: "t" })}`
        for (const id of [one, two]) {
          yield* sql`insert into api_keys ${sql.insert({ id, organizationId: org, name: "k", prefix: "pim_xxxx", keyHash: `hash-${id}`, createdAt: "t", updatedAt: "t" })}`
        }
        const rename = (id: string, name: string) => sql`update api_keys set name = ${name} where id = ${id}`
        const firstHolds = yield* Deferred.make<void>()
        const secondHolds = yield* Deferred.make<void>()
        const runs = yield* Ref.make(0)
        // Each takes one row, then waits for the row the other took: a cycle only Postgres can break.
        const first = uow.tenant(org, Effect.gen(function*() {
          yield* Ref.update(runs, (n) => n + 1)
          yield* rename(one, "first")
          yield* Deferred.succeed(firstHolds, undefined)
          yield* Deferred.await(secondHolds)
          yield* rename(two, "first")
        }))
        const second = uow.tenant(org, Effect.gen(function*() {
          yield* Ref.update(runs, (n) => n + 1)
          yield* Deferred.await(firstHolds)
          yield* rename(two, "second")
          yield* Deferred.succeed(secondHolds, undefined)
          yield* rename(one, "second")
        }))
        yield* Effect.all([first, second], { concurrency: "unbounded" })
        expect(yield* Ref.get(runs)).toBe(3)
        const names = yield* Effect.flatMap(sql`select name from api_keys where organization_id = ${org} order by id`, Schema.decodeUnknown(Names))
        // The one that ran again ran last, so it wrote both rows.
        expect(new Set(names.map((r) => r.name)).size).toBe(1)
      }))
  })
})
