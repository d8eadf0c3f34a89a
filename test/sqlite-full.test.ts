import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Schema } from "effect"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { StorageUnavailable } from "../core/shared/Errors.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { Families } from "../core/schema/Families.js"
import { Products } from "../core/products/Products.js"
import { catalogOver, newTenant } from "./support/Catalog.js"

const Count = Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ n: Schema.Number })))
const PageCount = Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ pageCount: Schema.Number })))

/**
 * A SQLite database with no room left (SQLITE_FULL, made here by capping its pages, as a full
 * disk does): the write dies with StorageUnavailable, which the host answers 503, and leaves
 * nothing of itself behind; once there is room again, writes go on.
 */
describe("a SQLite database that runs out of room", () => {
  it.live("refuses the write whole with StorageUnavailable, and writes again once there is room", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { tenant } = yield* newTenant
      const inTenant = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inTenant((yield* Families).create({ code: "lamps", label: {} }))
      const products = yield* Products
      const counted = Effect.flatMap(sql`select (select count(*) from products) + (select count(*) from events) as n`, Count)
      const [{ pageCount }] = yield* Effect.flatMap(sql`pragma page_count`, PageCount)
      yield* sql.unsafe(`pragma max_page_count = ${pageCount}`)
      const [before] = yield* counted
      // The first write that needs a page more than the database has fails.
      const write = (i: number) => inTenant(products.create({ familyId: family.id, name: `Lamp ${i} ${"x".repeat(200)}` }))
      let exit: Exit.Exit<unknown, unknown> = Exit.void
      let written = 0
      while (Exit.isSuccess(exit) && written < 1000) {
        exit = yield* Effect.exit(write(written))
        if (Exit.isSuccess(exit)) written += 1
      }
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toEqual(
        new StorageUnavailable({ message: "the database has no room left to write" })
      )
      const [after] = yield* counted
      expect(after.n - before.n).toBe(2 * written)
      yield* sql.unsafe(`pragma max_page_count = ${2 ** 30}`)
      yield* write(written)
      const [again] = yield* counted
      expect(again.n - before.n).toBe(2 * (written + 1))
    }).pipe(Effect.provide(catalogOver(SqliteStorage.layer(":memory:")))))
})
