import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { migrations } from "../adapters/sql/migrations/index.js"
import { migrate } from "../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"

const upTo = (last: number) =>
  Migrator.make({})({ loader: Migrator.fromRecord(Object.fromEntries(Object.entries(migrations).filter(([key]) => Number(key.split("_")[0]) <= last))) })

const Keys = Schema.Array(Schema.Struct({ name: Schema.String, nameKey: Schema.String }))

it.effect("migration 25 keys brand and category names ignoring spacing; a later brand of the same key keeps one unique by its id", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* upTo(24)
    const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values ('o1', 'Org', 'org', ${at(1)}, ${at(1)})`
    const brands: ReadonlyArray<readonly [string, string, string]> = [["b1", "Trim  Co", "trim  co"], ["b2", "Acme", "acme"], ["b3", " ACME ", " acme "], ["b4", "trim co", "trim co"]]
    for (const [i, [id, name, key]] of brands.entries()) {
      yield* sql`insert into brands (id, organization_id, name, name_key, slug, attributes, created_at, updated_at)
        values (${id}, 'o1', ${name}, ${key}, ${id}, '{}', ${at(i + 1)}, ${at(i + 1)})`
    }
    yield* sql`insert into categories (id, organization_id, name, name_key, slug, position, attributes, created_at, updated_at)
      values ('c1', 'o1', '  Winter   Boots ', '  winter   boots ', 'c1', 0, '{}', ${at(1)}, ${at(1)})`
    yield* migrate
    const read = (table: string) => sql`select name, name_key from ${sql(table)} order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)))
    expect((yield* read("brands")).map((b) => b.nameKey)).toEqual(["trim co", "acme", "acme b3", "trim co b4"])
    expect((yield* read("categories")).map((c) => c.nameKey)).toEqual(["winter boots"])
  }).pipe(Effect.provide(SqliteStorage.client(":memory:"))))
