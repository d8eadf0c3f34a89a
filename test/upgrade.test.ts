import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Layer, Schema } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { axisDigest } from "../adapters/sql/AxisDigest.js"
import { IntColumn, StoredValuesColumn } from "../adapters/sql/Columns.js"
import { latestKnownMigration, migrate, migrateWith } from "../adapters/sql/Migrate.js"
import { migrations } from "../adapters/sql/migrations/index.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { Brands } from "../core/catalog/Brands.js"
import { Categories } from "../core/catalog/Categories.js"
import { AuditLog } from "../core/events/AuditLog.js"
import { MediaLibrary } from "../core/media/MediaLibrary.js"
import { Products } from "../core/products/Products.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { axisKey } from "../core/variants/VariantAxes.js"
import { Variants } from "../core/variants/Variants.js"
import { catalogOver } from "./support/Catalog.js"
import { AT, catalogAt20, eventNames, ids, trailBootValues } from "./support/CatalogAt20.js"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"

/** A database that outlives the connections made to it: a SQLite file, or a fresh Postgres database. */
interface Place {
  readonly url: string
  /** A raw connection, below the storage ports: the schema is left as it is. */
  readonly client: Layer.Layer<SqlClient.SqlClient, unknown>
  /** The storage ports, migrated on start as a host or an embedding app does. */
  readonly storage: Layer.Layer<Layer.Layer.Success<ReturnType<typeof SqliteStorage.layer>>, unknown>
}

const sqlitePlace = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-upgrade-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir): Place => {
  const filename = join(dir, "catalog.db")
  return { url: `sqlite:${filename}`, client: SqliteStorage.client(filename), storage: SqliteStorage.layer(filename) }
}))

const postgresPlace = Effect.map(freshDatabase, (url): Place => ({ url, client: PostgresStorage.client(url, 2), storage: PostgresStorage.layer(url, 5) }))

const Latest = Schema.Array(Schema.Struct({ latest: IntColumn }))

/** The newest migration the database records. */
const recorded = (place: Place) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select max(migration_id) as latest from effect_sql_migrations`.withoutTransform).pipe(
    Effect.flatMap(Schema.decodeUnknown(Latest)),
    Effect.map(([row]) => row?.latest),
    Effect.provide(place.client),
    Effect.scoped
  )

const Columns = Schema.Array(Schema.Struct({ column: Schema.String }))

/** The columns of `table`, in either dialect. */
const columnsOf = (place: Place, table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.onDialectOrElse({
      pg: () => sql`select column_name as column from information_schema.columns where table_name = ${table} and table_schema = current_schema()`,
      orElse: () => sql`select name as column from pragma_table_info(${table})`
    })).pipe(
      Effect.flatMap(Schema.decodeUnknown(Columns)),
      Effect.map((rows) => rows.map((r) => r.column).sort()),
      Effect.provide(place.client),
      Effect.scoped
    )

const Keys = Schema.Array(Schema.Struct({ id: Schema.String, axisKey: Schema.String }))

/** The database holds the catalog exactly as migration 20 left it: the record, the schema, the rows. */
const stillAt20 = (place: Place) =>
  Effect.gen(function*() {
    expect(yield* recorded(place)).toBe(AT)
    // Columns later migrations add are absent.
    expect(yield* columnsOf(place, "brands")).not.toContain("name_key")
    expect(yield* columnsOf(place, "products")).not.toContain("name_text")
    const sql = yield* SqlClient.SqlClient
    const keys = yield* sql`select id, axis_key from variants order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)))
    expect(keys.map((k) => k.axisKey)).toEqual([
      JSON.stringify([["colour", [[null, null, "red"]]], ["size", [[null, null, "42"]]]]),
      JSON.stringify([["colour", [[null, null, "blue"]]], ["size", [[null, null, "43"]]]])
    ])
    const [products] = yield* sql`select count(*) as latest from products`.pipe(Effect.flatMap(Schema.decodeUnknown(Latest)))
    expect(products?.latest).toBe(5)
  }).pipe(Effect.provide(place.client), Effect.scoped)

const as = (organizationId: string) => CurrentTenant.of({ organizationId, actor: { type: "user", id: ids.user }, role: "admin" })

/** What the use cases read from the upgraded catalog, and that they still write to it. */
const readsBack = Effect.gen(function*() {
  const products = yield* Products
  const listed = (query: Parameters<typeof products.list>[0]) => Effect.map(products.list(query), (l) => l.data.map((p) => p.id))

  expect(yield* listed({ sortBy: "name" })).toEqual([ids.cafeSandal, ids.strassenschuh, ids.trailBoot, ids.hangul])
  // Search text as the later migrations made it again: whole words across inline tags and
  // format characters, character references read, `ß` spelled `ss`, Hangul composed.
  for (
    const [q, found] of [
      ["waterproof", [ids.trailBoot]],
      ["leder", [ids.trailBoot]],
      ["warm", [ids.trailBoot]],
      ["strassenschuh", [ids.strassenschuh]],
      ["Straßenschuh", [ids.strassenschuh]],
      ["edelstahl", [ids.strassenschuh]],
      ["한국어", [ids.hangul]],
      ["café", [ids.cafeSandal]],
      ["amp", []]
    ] as const
  ) expect({ q, found: yield* listed({ q }) }).toEqual({ q, found })
  expect(yield* listed({ tag: ["sale"] })).toEqual([ids.trailBoot])
  expect(yield* listed({ brandId: ids.acme, sortBy: "name" })).toEqual([ids.strassenschuh, ids.trailBoot])
  expect(yield* listed({ categoryId: ids.footwear, includeDescendants: true, sortBy: "name" })).toEqual([ids.cafeSandal, ids.trailBoot, ids.hangul])
  expect(yield* listed({ filterAttribute: "price", filterMin: 5000, sortBy: "name" })).toEqual([ids.strassenschuh, ids.trailBoot])
  expect(yield* listed({ sortBy: "attribute", sortAttribute: "price" })).toEqual([ids.cafeSandal, ids.strassenschuh, ids.trailBoot, ids.hangul])

  const facets = yield* products.facets({})
  expect(facets.total).toBe(4)
  expect(facets.statuses).toEqual([{ value: "active", count: 3 }, { value: "draft", count: 1 }])
  expect(facets.families).toEqual([{ id: ids.shoes, code: "shoes", label: "Shoes", count: 4 }])
  expect(facets.brands).toEqual([{ id: ids.acme, name: "Acme", count: 2 }, { id: ids.strasseCo, name: "STRASSE Co", count: 1 }])
  expect([...facets.categories].sort((a, b) => a.slug.localeCompare(b.slug))).toEqual([
    { id: ids.footwear, slug: "footwear", name: "Footwear", count: 2 },
    { id: ids.boots, slug: "stra-en-boots", name: "Straßen  Boots", count: 2 }
  ])
  expect([...facets.tags].sort((a, b) => a.value.localeCompare(b.value))).toEqual(
    ["cafe", "indoor", "outdoor", "sale", "summer"].map((value) => ({ value, count: 1 }))
  )
  expect((yield* products.facets({ q: "boot" })).total).toBe(1)

  const boot = yield* products.get(ids.trailBoot, {})
  expect({ name: boot.name, slug: boot.slug, status: boot.status, brandId: boot.brandId, tags: boot.tags, attributes: boot.attributes }).toEqual({
    name: "Trail Boot",
    slug: "trail-boot",
    status: "active",
    brandId: ids.acme,
    tags: ["outdoor", "sale"],
    attributes: trailBootValues
  })
  expect((yield* products.get(ids.trailBoot, { locale: "de" })).resolvedAttributes?.material).toBe("Leder")
  expect((yield* products.get(ids.hangul, {})).name).toBe("한국어 슬리퍼")

  const audit = yield* AuditLog
  expect((yield* audit.list({ limit: 100, offset: 0 })).data.map((e) => e.name)).toEqual([...eventNames].reverse())
  expect((yield* audit.list({ entityId: ids.photo, limit: 10, offset: 0 })).data.map((e) => [e.name, e.payload])).toEqual([
    ["media.attached", { productId: ids.trailBoot, filename: "boot.png", contentType: "image/png", size: 16 }]
  ])

  const variants = yield* Variants
  expect((yield* variants.list(ids.trailBoot, { limit: 10, offset: 0 })).data.map((v) => [v.sku, v.attributes])).toEqual([
    ["TB-RED-42", { colour: [{ locale: null, channel: null, value: "red" }], size: [{ locale: null, channel: null, value: "42" }] }],
    ["TB-BLUE-43", { colour: [{ locale: null, channel: null, value: "blue" }], size: [{ locale: null, channel: null, value: "43" }] }]
  ])
  // The combinations stored before stay taken (migration 21 keyed them by their digest).
  const axes = (colour: string, size: string) => ({ colour: [{ locale: null, channel: null, value: colour }], size: [{ locale: null, channel: null, value: size }] })
  expect((yield* Effect.flip(variants.create(ids.trailBoot, { sku: "TB-RED-42-B", attributes: axes("red", "42") })))._tag).toBe("Conflict")
  expect((yield* variants.create(ids.trailBoot, { sku: "TB-BLUE-42", attributes: axes("blue", "42") })).sku).toBe("TB-BLUE-42")

  const categories = yield* Categories
  expect((yield* categories.list({ parentId: ids.footwear })).map((c) => c.name)).toEqual(["Straßen  Boots"])
  expect((yield* categories.get(ids.boots)).parentId).toBe(ids.footwear)
  const brands = yield* Brands
  // Both stayed, though their names are one under the name keys of today.
  expect((yield* brands.list({})).map((b) => b.id)).toEqual([ids.acme, ids.strasseCo, ids.straßeCo])
  expect((yield* Effect.flip(brands.create({ name: "ACME" })))._tag).toBe("Conflict")
  // The later one, keyed by its id, can still be written, and renamed to a name of the same key.
  expect((yield* brands.update(ids.straßeCo, { slug: "strasse-co-2" })).slug).toBe("strasse-co-2")
  expect((yield* brands.update(ids.straßeCo, { name: "STRAẞE Co" })).name).toBe("STRAẞE Co")
  expect((yield* Effect.flip(brands.update(ids.straßeCo, { name: "acme" })))._tag).toBe("Conflict")
  // Once the older one is gone, it takes the plain key, which no new brand can share.
  yield* brands.delete(ids.strasseCo)
  expect((yield* Effect.flip(brands.create({ name: "STRASSE CO" })))._tag).toBe("Conflict")
  yield* brands.update(ids.straßeCo, { slug: "strasse-co" })
  expect((yield* Effect.flip(brands.create({ name: "STRASSE CO" })))._tag).toBe("Conflict")
  expect((yield* brands.update(ids.straßeCo, { name: "Straße Company" })).name).toBe("Straße Company")

  const media = yield* MediaLibrary
  expect((yield* media.list(ids.trailBoot, { limit: 10, offset: 0 })).data.map((m) => [m.id, m.filename, m.alt, m.size])).toEqual([
    [ids.photo, "boot.png", "Side view", 16]
  ])

  // Writes keep every index in step.
  yield* products.update(ids.hangul, { name: "한국어 실내화", status: "active" })
  expect(yield* listed({ q: "실내화" })).toEqual([ids.hangul])
  expect(yield* listed({ q: "슬리퍼" })).toEqual([])
  expect((yield* products.facets({})).statuses).toEqual([{ value: "active", count: 4 }])
})

/** The other organization sees its own rows only, as before. */
const otherReadsBack = Effect.gen(function*() {
  const products = yield* Products
  expect((yield* products.list({ q: "trail" })).data.map((p) => p.id)).toEqual([ids.otherBoot])
  expect((yield* products.facets({})).brands).toEqual([{ id: ids.otherAcme, name: "Acme", count: 1 }])
})

/** Starts the current version on the database, as a host does (migrating), and reads the catalog through its use cases. */
const upgradedReadsBack = (place: Place) =>
  Effect.gen(function*() {
    yield* Effect.provideService(readsBack, CurrentTenant, as(ids.org))
    yield* Effect.provideService(otherReadsBack, CurrentTenant, as(ids.otherOrg))
  }).pipe(Effect.provide(catalogOver(place.storage)), Effect.scoped)

const StoredVariants = Schema.Array(Schema.Struct({ id: Schema.String, attributes: StoredValuesColumn, axisKey: Schema.NullOr(Schema.String) }))

/** Every variant's stored axis key is the one this version makes of its values, as a write of it would store. */
const axisKeysCurrent = (place: Place) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const axes = [{ attributeId: ids.colour, code: "colour", type: "select" as const }, { attributeId: ids.size, code: "size", type: "text" as const }]
    const rows = yield* sql`select id, attributes, axis_key from variants order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(StoredVariants)))
    expect(rows.length).toBe(3)
    for (const row of rows) expect([row.id, row.axisKey]).toEqual([row.id, axisDigest(axisKey(axes, row.attributes))])
  }).pipe(Effect.provide(place.client), Effect.scoped)

const upgrade = (place: Place) =>
  Effect.gen(function*() {
    yield* catalogAt20.pipe(Effect.provide(place.client), Effect.scoped)
    yield* stillAt20(place)
    yield* upgradedReadsBack(place)
    expect(yield* recorded(place)).toBe(latestKnownMigration)
    yield* axisKeysCurrent(place)
  })

/** The newest migration and its key, whichever it is. */
const lastKey = Object.keys(migrations).find((key) => Number(key.split("_")[0]) === latestKnownMigration)!

/** This version's migrations, with `after` run inside the transaction once migration `key` has run. */
const failingAfter = (key: string, after: Effect.Effect<void, unknown>) => ({
  ...migrations,
  [key]: Effect.zipRight(migrations[key as keyof typeof migrations], after)
})

/** A later migration fails: the database stays at 20 as it was, and the next start completes the upgrade. */
const failedThenRestarted = (place: Place) =>
  Effect.gen(function*() {
    yield* catalogAt20.pipe(Effect.provide(place.client), Effect.scoped)
    for (const key of [lastKey, Object.keys(migrations).find((k) => Number(k.split("_")[0]) === AT + 1)!]) {
      // The migrator makes a migration's failure a defect.
      const failed = yield* migrateWith(failingAfter(key, Effect.fail("disk full"))).pipe(
        Effect.provide(place.client),
        Effect.scoped,
        Effect.sandbox,
        Effect.flip,
        Effect.map(Cause.squash)
      )
      expect(failed).toMatchObject({ _tag: "MigrationError", message: `Migration "${key}" failed` })
      yield* stillAt20(place)
    }
    yield* upgradedReadsBack(place)
    expect(yield* recorded(place)).toBe(latestKnownMigration)
  })

const root = resolve(import.meta.dirname, "..")

/** A process migrating `url` that kills itself (SIGKILL) right after the newest migration ran, before the transaction commits. */
const killedWhileMigrating = (url: string) =>
  Effect.async<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/MigrateAndDie.ts", url, lastKey], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c: Buffer) => (output += c.toString()))
    child.stderr.on("data", (c: Buffer) => (output += c.toString()))
    child.once("exit", (code, signal) => resume(Effect.succeed({ code, signal, output })))
  })

const killedThenRestarted = (place: Place) =>
  Effect.gen(function*() {
    yield* catalogAt20.pipe(Effect.provide(place.client), Effect.scoped)
    const killed = yield* killedWhileMigrating(place.url)
    expect(killed).toEqual({ code: null, signal: "SIGKILL", output: `ran ${lastKey}\n` })
    yield* stillAt20(place)
    yield* upgradedReadsBack(place)
    expect(yield* recorded(place)).toBe(latestKnownMigration)
  })

/** The migrator records the migrations it is about to run in one insert; when that fails, nothing ran and the start fails. */
const unrecorded = (place: Place) =>
  Effect.gen(function*() {
    yield* catalogAt20.pipe(Effect.provide(place.client), Effect.scoped)
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      pg: () =>
        Effect.zipRight(
          sql.unsafe(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no space left on device'; END $$`),
          sql.unsafe(`CREATE TRIGGER refuse BEFORE INSERT ON effect_sql_migrations FOR EACH STATEMENT EXECUTE FUNCTION refuse()`)
        ),
      orElse: () => sql.unsafe(`CREATE TRIGGER refuse BEFORE INSERT ON effect_sql_migrations BEGIN SELECT RAISE(ABORT, 'no space left on device'); END`)
    })
    const failed = yield* Effect.flip(migrate)
    expect(failed).toMatchObject({ _tag: "MigrationsNotRecorded", latest: AT, known: latestKnownMigration })
    yield* stillAt20(place)
    yield* sql.unsafe(`DROP TRIGGER refuse${sql.onDialectOrElse({ pg: () => " ON effect_sql_migrations", orElse: () => "" })}`)
    yield* upgradedReadsBack(place)
  }).pipe(Effect.provide(place.client), Effect.scoped)

describe("a catalog written at migration 20, upgraded to this version (SQLite)", () => {
  it.scopedLive("reads back through the use cases: lists, searches, facets, records", () => Effect.flatMap(sqlitePlace, upgrade), 60_000)
  it.scopedLive("a migration that fails leaves it at 20 as it was, and the next start upgrades it", () => Effect.flatMap(sqlitePlace, failedThenRestarted), 60_000)
  it.scopedLive("a process killed while it migrates leaves it at 20 as it was, and the next start upgrades it", () => Effect.flatMap(sqlitePlace, killedThenRestarted), 60_000)
  it.scopedLive("a failure to record the run leaves it at 20, and the start fails instead of going on as if migrated", () => Effect.flatMap(sqlitePlace, unrecorded), 60_000)
})

describe.runIf(await postgresAvailable())("a catalog written at migration 20, upgraded to this version (Postgres)", () => {
  it.scopedLive("reads back through the use cases: lists, searches, facets, records", () => Effect.flatMap(postgresPlace, upgrade), 60_000)
  it.scopedLive("a migration that fails leaves it at 20 as it was, and the next start upgrades it", () => Effect.flatMap(postgresPlace, failedThenRestarted), 60_000)
  it.scopedLive("a process killed while it migrates leaves it at 20 as it was, and the next start upgrades it", () => Effect.flatMap(postgresPlace, killedThenRestarted), 60_000)
  it.scopedLive("a failure to record the run leaves it at 20, and the start fails instead of going on as if migrated", () => Effect.flatMap(postgresPlace, unrecorded), 60_000)
})
