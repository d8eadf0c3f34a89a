import { SqlClient, type Statement } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { auditPage, auditStatement } from "../adapters/sql/AuditQuery.js"
import { toCatalogEvent } from "../adapters/sql/EventRow.js"
import { DatabaseTooNew, latestKnownMigration } from "../adapters/sql/Migrate.js"
import { migrations } from "../adapters/sql/migrations/index.js"
import { migrate } from "../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { chunksOf, JsonColumn } from "../adapters/sql/Columns.js"
import { axisDigest } from "../adapters/sql/AxisDigest.js"
import { axisKey } from "../core/variants/VariantAxes.js"
import { contentPagesStatement } from "../adapters/sql/SqlContentPageRepository.js"
import { relationshipsStatement } from "../adapters/sql/SqlRelationshipRepository.js"
import type { ContentPageFilter } from "../core/content/ContentPage.js"
import type { AuditFilter } from "../core/events/AuditEntry.js"
import { upTo } from "./support/MigrateUpTo.js"
import { freshDatabase, postgresAvailable, postgresClient } from "./support/Postgres.js"

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

it.effect("migration 28 keys brand and category names folded as upper-case spells them; a later brand of the same key keeps one unique by its id", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* upTo(27)
    const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values ('o1', 'Org', 'org', ${at(1)}, ${at(1)})`
    const brands: ReadonlyArray<readonly [string, string, string]> = [["b1", "Straße", "straße"], ["b2", "STRASSE", "strasse"], ["b3", "ΟΔΟΣ'Α", "οδοσ'α"], ["b4", "οδος'α", "οδος'α"]]
    for (const [i, [id, name, key]] of brands.entries()) {
      yield* sql`insert into brands (id, organization_id, name, name_key, slug, attributes, created_at, updated_at)
        values (${id}, 'o1', ${name}, ${key}, ${id}, '{}', ${at(i + 1)}, ${at(i + 1)})`
    }
    yield* sql`insert into categories (id, organization_id, name, name_key, slug, position, attributes, created_at, updated_at)
      values ('c1', 'o1', 'Große Größen', 'große größen', 'c1', 0, '{}', ${at(1)}, ${at(1)})`
    yield* migrate
    const read = (table: string) => sql`select name, name_key from ${sql(table)} order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)))
    expect((yield* read("brands")).map((b) => b.nameKey)).toEqual(["strasse", "strasse b2", "οδοσ'α", "οδοσ'α b4"])
    expect((yield* read("categories")).map((c) => c.nameKey)).toEqual(["grosse grössen"])
  }).pipe(Effect.provide(SqliteStorage.client(":memory:"))))

it.effect("migration 35 keys brand and category names without their zero-width spaces, and writes only the organizations holding one", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* upTo(34)
    const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values ('o1', 'Org', 'org', ${at(1)}, ${at(1)}), ('o2', 'Other', 'other', ${at(1)}, ${at(1)})`
    const brands: ReadonlyArray<readonly [string, string, string, string]> = [
      ["b1", "o1", "Acme", "acme"],
      ["b2", "o1", "ACME\u200b", "acme\u200b"],
      ["b3", "o1", "Ac\u200bme", "ac\u200bme"],
      ["b4", "o2", "Trim Co", "stale, as no name of its organization holds a zero-width space"]
    ]
    for (const [i, [id, organizationId, name, key]] of brands.entries()) {
      yield* sql`insert into brands (id, organization_id, name, name_key, slug, attributes, created_at, updated_at)
        values (${id}, ${organizationId}, ${name}, ${key}, ${id}, '{}', ${at(i + 1)}, ${at(i + 1)})`
    }
    yield* sql`insert into categories (id, organization_id, name, name_key, slug, position, attributes, created_at, updated_at)
      values ('c1', 'o1', '\u200bWinter Bo\u200bots', '\u200bwinter bo\u200bots', 'c1', 0, '{}', ${at(1)}, ${at(1)})`
    yield* migrate
    const read = (table: string) => sql`select name, name_key from ${sql(table)} order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)))
    expect((yield* read("brands")).map((b) => b.nameKey)).toEqual(["acme", "acme b2", "acme b3", "stale, as no name of its organization holds a zero-width space"])
    expect((yield* read("categories")).map((c) => c.nameKey)).toEqual(["winter boots"])
  }).pipe(Effect.provide(SqliteStorage.client(":memory:"))))

const Stored = Schema.Array(Schema.Struct({ id: Schema.String, tags: JsonColumn(Schema.Array(Schema.String)), searchText: Schema.String }))
const TagLinks = Schema.Array(Schema.Struct({ productId: Schema.String, tag: Schema.String }))

const fixtureAt = "2026-01-01T00:00:00.000Z"
const fixtureId = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
const [o1, a1, a2, f1] = [1, 2, 3, 4].map(fixtureId)

/** Organization o1 with the family f1 of a rich text `body` (a1) and a text `note` (a2), as the schema before a migration stores them. */
const textFamily = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const at = fixtureAt
  const yes = sql.onDialectOrElse({ pg: () => sql`true`, orElse: () => sql`1` })
  const no = sql.onDialectOrElse({ pg: () => sql`false`, orElse: () => sql`0` })
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${o1}, 'Org', 'org', ${at}, ${at})`
  for (const [attributeId, code, type] of [[a1, "body", "richtext"], [a2, "note", "text"]] as const) {
    yield* sql`insert into attributes (id, organization_id, code, entity_kind, label, type, is_localizable, is_scopable, requirement, is_variant_axis, position, created_at, updated_at)
      values (${attributeId}, ${o1}, ${code}, 'product', '{}', ${type}, ${yes}, ${no}, 'available', ${no}, 0, ${at}, ${at})`
  }
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${f1}, ${o1}, 'fam', 'product', '{}', ${at}, ${at})`
  for (const attributeId of [a1, a2]) {
    yield* sql`insert into family_attributes (organization_id, family_id, attribute_id, position, created_at, updated_at) values (${o1}, ${f1}, ${attributeId}, 0, ${at}, ${at})`
  }
})

const migration27 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(26)
  const [p1, p2, p3, p4] = [5, 6, 7, 8].map(fixtureId)
  yield* textFamily
  const products: ReadonlyArray<readonly [string, string, ReadonlyArray<string>, unknown, string]> = [
    [p1!, "One", ["sale-\uFE0F", "\uFE0F", "sale", "ok"], {}, " one one "],
    [p2!, "Two", ["plain"], { body: [{ locale: "fr", channel: null, value: "<p>caf&#233; &amp; th&eacute;</p>" }] }, " two two p caf 233 amp th eacute p "],
    [p3!, "Three", [], { note: [{ locale: null, channel: null, value: "volume <10 dB, weight >2 kg" }] }, " three three volume 2 kg "],
    [p4!, "Straße ΟΔΟΣ", [], {}, " straße οδος strasse "]
  ]
  for (const [productId, name, tags, attributes, searchText] of products) {
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, created_at, updated_at)
      values (${productId}, ${o1}, ${f1}, ${name}, ${productId === p4 ? "strasse" : name.toLowerCase()}, 'draft', ${JSON.stringify(attributes)}, ${JSON.stringify(tags)}, ${searchText}, ${fixtureAt}, ${fixtureAt})`
    for (const tag of tags) yield* sql`insert into product_tags (organization_id, product_id, tag) values (${o1}, ${productId}, ${tag})`
  }
  yield* migrate
  const stored = yield* sql`select id, tags, search_text from products order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Stored)))
  expect(stored.map((p) => [p.id, p.tags, p.searchText])).toEqual([
    [p1, ["sale", "ok"], " one one "],
    [p2, ["plain"], " two two cafe the "],
    [p3, [], " three three volume 10 db weight 2 kg "],
    [p4, [], " strasse οδοσ strasse "]
  ])
  const links = yield* sql`select product_id, tag from product_tags order by product_id, tag`.pipe(Effect.flatMap(Schema.decodeUnknown(TagLinks)))
  expect(links).toEqual([{ productId: p1, tag: "ok" }, { productId: p1, tag: "sale" }, { productId: p2, tag: "plain" }])
})

it.effect("migration 27 drops the marks on symbols kept in tags, and makes again the search text of values holding markup or references (SQLite)", () =>
  migration27.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 27 drops the marks on symbols kept in tags, and makes again the search text of values holding markup or references (Postgres)", () =>
    migration27.pipe(Effect.provide(postgresClient)), 60_000)
})

const migration36 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(35)
  const [p1, p2, p3] = [5, 6, 7].map(fixtureId)
  yield* textFamily
  // As written before: the rich text's `<10 dB, weight >` read as a tag. The other two are left as they are.
  const products: ReadonlyArray<readonly [string, string, unknown, string]> = [
    [p1!, "One", { body: [{ locale: null, channel: null, value: "<p>volume <10 dB, weight >2 kg</p>" }] }, " one one volume 2 kg "],
    [p2!, "Two", { body: [{ locale: null, channel: null, value: "<p>Super<b>sonic</b></p>" }] }, " stale "],
    [p3!, "Three", { note: [{ locale: null, channel: null, value: "volume <10 dB" }] }, " three three volume 10 db "]
  ]
  for (const [productId, name, attributes, searchText] of products) {
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, created_at, updated_at)
      values (${productId}, ${o1}, ${f1}, ${name}, ${name.toLowerCase()}, 'draft', ${JSON.stringify(attributes)}, '[]', ${searchText}, ${fixtureAt}, ${fixtureAt})`
  }
  yield* migrate
  const stored = yield* sql`select id, tags, search_text from products order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Stored)))
  expect(stored.map((p) => [p.id, p.searchText])).toEqual([
    [p1, " one one volume 10 db weight 2 kg "],
    [p2, " stale "],
    [p3, " three three volume 10 db "]
  ])
})

it.effect("migration 36 makes again the search text of rich text holding a `<` that starts no tag, and of no other product (SQLite)", () =>
  migration36.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 36 makes again the search text of rich text holding a `<` that starts no tag, and of no other product (Postgres)", () =>
    migration36.pipe(Effect.provide(postgresClient)), 60_000)
})

const root = resolve(import.meta.dirname, "..")
const known = Object.keys(migrations).length

/** A process that migrates `url` as a host or an embedding app starting up does, once told to go. */
const migratingProcess = (url: string) => {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/MigrateOnce.ts", url], { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
  let output = ""
  const ready = new Promise<void>((done) =>
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.startsWith("ready\n")) done()
    })
  )
  const result = new Promise<unknown>((done) => child.once("exit", () => done(JSON.parse(output.trim().split("\n").pop() ?? "null"))))
  return { ready, go: () => child.stdin.write("go\n"), result }
}

/** Three processes migrate one fresh database at the same moment: one applies every migration, the others wait for it and apply none. */
const startTogether = async (url: string) => {
  const processes = [migratingProcess(url), migratingProcess(url), migratingProcess(url)]
  await Promise.all(processes.map((p) => p.ready))
  processes.forEach((p) => p.go())
  const runs = await Promise.all(processes.map((p) => p.result))
  expect(runs.map((r) => JSON.stringify(r)).sort()).toEqual(
    [{ applied: 0, seen: known }, { applied: 0, seen: known }, { applied: known, seen: known }].map((r) => JSON.stringify(r))
  )
}

it("processes that start together on one fresh SQLite file take turns: one migrates, the others wait and find nothing to do", async () => {
  const dir = mkdtempSync(join(tmpdir(), "catalog-migrate-"))
  try {
    await startTogether(`sqlite:${join(dir, "catalog.db")}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 120_000)

/** A database whose record names a migration newer than any this version knows. */
const tooNew = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
  expect(yield* migrate).toEqual([])
  yield* sql`insert into effect_sql_migrations (migration_id, name) values (${latestKnownMigration + 1}, 'from_the_future')`.withoutTransform
  const refused = yield* Effect.flip(migrate)
  expect(refused).toBeInstanceOf(DatabaseTooNew)
  expect(refused.message).toBe(
    `the database was migrated by a newer version of the service (migration ${latestKnownMigration + 1}; this version knows up to ${latestKnownMigration})`
  )
})

it.effect("a database migrated by a newer version is refused, not run on (SQLite)", () => tooNew.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres, several processes", () => {
  it.effect("a database migrated by a newer version is refused, not run on (Postgres)", () => tooNew.pipe(Effect.provide(postgresClient)), 60_000)

  it.effect("processes that start together on one fresh Postgres database take turns: one migrates, the others wait and find nothing to do", () =>
    Effect.flatMap(freshDatabase, (url) => Effect.promise(() => startTogether(url))).pipe(Effect.scoped), 120_000)
})

it.effect("migration 27 on many products makes SQLite's trigram index again in one pass, and keeps it current afterwards", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* upTo(26)
    const at = "2026-01-01T00:00:00.000Z"
    const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at}, ${at})`
    yield* sql`insert into attributes (id, organization_id, code, entity_kind, label, type, is_localizable, is_scopable, requirement, is_variant_axis, position, created_at, updated_at)
      values (${id(2)}, ${id(1)}, 'body', 'product', '{}', 'richtext', 0, 0, 'available', 0, 0, ${at}, ${at})`
    yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${id(3)}, ${id(1)}, 'fam', 'product', '{}', ${at}, ${at})`
    yield* sql`insert into family_attributes (organization_id, family_id, attribute_id, position, created_at, updated_at) values (${id(1)}, ${id(3)}, ${id(2)}, 0, ${at}, ${at})`
    const body = JSON.stringify({ body: [{ locale: null, channel: null, value: "<p>caf&#233;</p>" }] })
    const count = 1500
    for (let i = 0; i < count; i++) {
      yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, created_at, updated_at)
        values (${id(100 + i)}, ${id(1)}, ${id(3)}, ${`Mug ${i}`}, ${`mug-${i}`}, 'draft', ${body}, '[]', ${` mug ${i} mug ${i} p caf 233 p `}, ${at}, ${at})`
    }
    yield* migrate
    const matches = (q: string) =>
      sql`select count(*) as n from products_fts where products_fts match ${q}`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))), Effect.map(([r]) => r?.n))
    expect([yield* matches(`"cafe"`), yield* matches(`"caf 233"`)]).toEqual([count, 0])
    yield* sql`update products set search_text = ' teapot ' where id = ${id(100)}`
    expect([yield* matches(`"teapot"`), yield* matches(`"cafe"`)]).toEqual([1, count - 1])
  }).pipe(Effect.provide(SqliteStorage.client(":memory:"))), 60_000)

const NameTexts = Schema.Array(Schema.Struct({ id: Schema.String, nameText: Schema.String }))

const migration29 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(28)
  const at = "2026-01-01T00:00:00.000Z"
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at}, ${at})`
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${id(2)}, ${id(1)}, 'fam', 'product', '{}', ${at}, ${at})`
  const products = [[id(3), "Straße Lamp", " strasse lamp strasse lamp "], [id(4), "Desk", " desk desk a lamp "]] as const
  for (const [productId, name, searchText] of products) {
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, created_at, updated_at)
      values (${productId}, ${id(1)}, ${id(2)}, ${name}, ${productId}, 'draft', '{}', '[]', ${searchText}, ${at}, ${at})`
  }
  yield* migrate
  const stored = yield* sql`select id, name_text from products order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(NameTexts)))
  expect(stored).toEqual([{ id: id(3), nameText: " strasse lamp " }, { id: id(4), nameText: " desk " }])
  // What the name tier reads: SQLite's trigram index has the name as a column of its own.
  const named = sql.onDialectOrElse({
    pg: () => sql`select id from products where name_text like '%lamp%'`,
    orElse: () => sql`select p.id from products_fts f join products p on p.seq = f.rowid where products_fts match 'name_text : ("lamp")'`
  })
  expect(yield* Effect.map(named, (rows) => rows.map((r) => r.id))).toEqual([id(3)])
  yield* sql`update products set name_text = ' desk lamp ' where id = ${id(4)}`
  expect((yield* Effect.map(named, (rows) => rows.map((r) => r.id))).sort()).toEqual([id(3), id(4)])
})

it.effect("migration 29 folds every product's name into the text relevance ranks first (SQLite)", () =>
  migration29.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 29 folds every product's name into the text relevance ranks first (Postgres)", () =>
    migration29.pipe(Effect.provide(postgresClient)), 60_000)
})

const Texts = Schema.Array(Schema.Struct({ id: Schema.String, nameText: Schema.String, searchText: Schema.String }))

const migration30 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(29)
  const at = "2026-01-01T00:00:00.000Z"
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at}, ${at})`
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${id(2)}, ${id(1)}, 'fam', 'product', '{}', ${at}, ${at})`
  const no = sql.onDialectOrElse({ pg: () => sql`false`, orElse: () => sql`0` })
  yield* sql`insert into attributes (id, organization_id, code, entity_kind, label, type, is_localizable, is_scopable, requirement, is_variant_axis, position, created_at, updated_at)
    values (${id(9)}, ${id(1)}, 'body', 'product', '{}', 'richtext', ${no}, ${no}, 'available', ${no}, 0, ${at}, ${at})`
  yield* sql`insert into family_attributes (organization_id, family_id, attribute_id, position, created_at, updated_at) values (${id(1)}, ${id(2)}, ${id(9)}, 0, ${at}, ${at})`
  const body = (html: string) => JSON.stringify({ body: [{ locale: null, channel: null, value: html }] })
  // As the older version folded them: Hangul syllables decomposed into their letters, every tag a break.
  const nfd = (s: string) => s.normalize("NFD")
  const products = [
    [id(3), "한국어 사전", "hangul", "{}", nfd(" 한국어 사전 hangul "), nfd(" 한국어 사전 ")],
    [id(4), "Desk", "desk", "{}", " desk desk stale ", " desk "],
    [id(5), "Horn", "horn", body("<p>Super<b>sonic</b></p>"), " horn horn super sonic ", " horn "],
    [id(6), "Bell", "bell", body("<p>one</p><p>two</p>"), " bell bell one two stale ", " bell "],
    [id(7), "Wasser\u00ADkocher", "wasserkocher", "{}", " wasser kocher wasserkocher ", " wasser kocher "],
    [id(8), "Topf", "topf", body("Edel\u00ADstahl"), " topf topf edel stahl ", " topf "]
  ] as const
  for (const [productId, name, slug, attributes, searchText, nameText] of products) {
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, name_text, created_at, updated_at)
      values (${productId}, ${id(1)}, ${id(2)}, ${name}, ${slug}, 'draft', ${attributes}, '[]', ${searchText}, ${nameText}, ${at}, ${at})`
  }
  yield* migrate
  const stored = yield* sql`select id, name_text, search_text from products order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Texts)))
  expect(stored).toEqual([
    { id: id(3), nameText: " 한국어 사전 ", searchText: " 한국어 사전 hangul " },
    // Without Hangul or markup: not written.
    { id: id(4), nameText: " desk ", searchText: " desk desk stale " },
    { id: id(5), nameText: " horn ", searchText: " horn horn supersonic " },
    { id: id(6), nameText: " bell ", searchText: " bell bell one two " },
    { id: id(7), nameText: " wasserkocher ", searchText: " wasserkocher wasserkocher " },
    { id: id(8), nameText: " topf ", searchText: " topf topf edelstahl " }
  ])
  const named = sql.onDialectOrElse({
    pg: () => sql`select id from products where name_text like ${"%한국어%"}`,
    orElse: () => sql`select p.id from products_fts f join products p on p.seq = f.rowid where products_fts match ${'name_text : ("한국어")'}`
  })
  expect(yield* Effect.map(named, (rows) => rows.map((r) => r.id))).toEqual([id(3)])
})

it.effect("migration 30 composes the Hangul syllables of the search text and the folded name again, and reads inline tags of rich text and format characters again (SQLite)", () =>
  migration30.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 30 composes the Hangul syllables of the search text and the folded name again, and reads inline tags of rich text and format characters again (Postgres)", () =>
    migration30.pipe(Effect.provide(postgresClient)), 60_000)
})

const migration31 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(30)
  const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at(1)}, ${at(1)})`
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${id(2)}, ${id(1)}, 'fam', 'product', '{}', ${at(1)}, ${at(1)})`
  const no = sql.onDialectOrElse({ pg: () => sql`false`, orElse: () => sql`0` })
  yield* sql`insert into attributes (id, organization_id, code, entity_kind, label, type, is_localizable, is_scopable, requirement, is_variant_axis, position, created_at, updated_at)
    values (${id(9)}, ${id(1)}, 'body', 'product', '{}', 'richtext', ${no}, ${no}, 'available', ${no}, 0, ${at(1)}, ${at(1)})`
  yield* sql`insert into family_attributes (organization_id, family_id, attribute_id, position, created_at, updated_at) values (${id(1)}, ${id(2)}, ${id(9)}, 0, ${at(1)}, ${at(1)})`
  const body = (html: string) => JSON.stringify({ body: [{ locale: null, channel: null, value: html }] })
  // As the older version folded them: compatibility forms kept as they were written.
  const products = [
    [id(3), "Ｋｅｔｔｌｅ ２０００", "kettle", "{}", " ｋｅｔｔｌｅ ２０００ kettle ", " ｋｅｔｔｌｅ ２０００ "],
    [id(4), "Desk", "desk", "{}", " desk desk stale ", " desk "],
    [id(5), "Sack", "sack", body("<p>ﬁne ﬂour, 10 m²</p>"), " sack sack ﬁne ﬂour 10 m² ", " sack "],
    [id(6), "Café", "cafe", body("<p>crème</p>"), " cafe cafe creme stale ", " cafe "]
  ] as const
  for (const [productId, name, slug, attributes, searchText, nameText] of products) {
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, name_text, created_at, updated_at)
      values (${productId}, ${id(1)}, ${id(2)}, ${name}, ${slug}, 'draft', ${attributes}, '[]', ${searchText}, ${nameText}, ${at(1)}, ${at(1)})`
  }
  const brands = [[id(10), "Acme", "acme"], [id(11), "Ａｃｍｅ", "ａｃｍｅ"], [id(12), "ﬁne Foods", "ﬁne foods"], [id(13), "Wasser\u00ADwerk", "wasser\u00ADwerk"]] as const
  for (const [i, [brandId, name, key]] of brands.entries()) {
    yield* sql`insert into brands (id, organization_id, name, name_key, slug, attributes, created_at, updated_at)
      values (${brandId}, ${id(1)}, ${name}, ${key}, ${`b${i}`}, '{}', ${at(i + 1)}, ${at(i + 1)})`
  }
  yield* sql`insert into categories (id, organization_id, name, name_key, slug, position, attributes, created_at, updated_at)
    values (${id(20)}, ${id(1)}, 'Ｗｉｎｔｅｒ Boots', 'ｗｉｎｔｅｒ boots', 'winter', 0, '{}', ${at(1)}, ${at(1)})`
  yield* migrate
  const stored = yield* sql`select id, name_text, search_text from products order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Texts)))
  expect(stored).toEqual([
    { id: id(3), nameText: " kettle 2000 ", searchText: " kettle 2000 kettle " },
    // Without a compatibility form: not written.
    { id: id(4), nameText: " desk ", searchText: " desk desk stale " },
    { id: id(5), nameText: " sack ", searchText: " sack sack fine flour 10 m2 " },
    { id: id(6), nameText: " cafe ", searchText: " cafe cafe creme stale " }
  ])
  const keys = (table: string) => sql`select name, name_key from ${sql(table)} order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(Keys)))
  // The later of two brands of one key keeps one unique by its id.
  expect((yield* keys("brands")).map((b) => b.nameKey)).toEqual(["acme", `acme ${id(11)}`, "fine foods", "wasserwerk"])
  expect((yield* keys("categories")).map((c) => c.nameKey)).toEqual(["winter boots"])
  const named = sql.onDialectOrElse({
    pg: () => sql`select id from products where name_text like ${"%kettle%"}`,
    orElse: () => sql`select p.id from products_fts f join products p on p.seq = f.rowid where products_fts match ${'name_text : ("kettle")'}`
  })
  expect(yield* Effect.map(named, (rows) => rows.map((r) => r.id))).toEqual([id(3)])
})

it.effect("migration 31 spells compatibility forms plainly in search text, folded names and brand and category name keys (SQLite)", () =>
  migration31.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 31 spells compatibility forms plainly in search text, folded names and brand and category name keys (Postgres)", () =>
    migration31.pipe(Effect.provide(postgresClient)), 60_000)
})

it.effect("migration 31 reads the products a page at a time, and on many of them makes SQLite's trigram index again in one pass", () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* upTo(30)
    const at = "2026-01-01T00:00:00.000Z"
    const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at}, ${at})`
    yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${id(2)}, ${id(1)}, 'fam', 'product', '{}', ${at}, ${at})`
    // More than two pages, each product with a compatibility form in its name.
    const count = 4500
    const rows = Array.from({ length: count }, (_, i) => ({
      id: id(100 + i),
      organizationId: id(1),
      familyId: id(2),
      name: `Ｍｕｇ ${i}`,
      slug: `mug-${i}`,
      status: "draft",
      attributes: "{}",
      tags: "[]",
      searchText: ` ｍｕｇ ${i} mug ${i} `,
      nameText: ` ｍｕｇ ${i} `,
      createdAt: at,
      updatedAt: at
    }))
    for (const chunk of chunksOf(rows, 500)) yield* sql`insert into products ${sql.insert(chunk)}`
    yield* migrate
    const matching = (query: string) =>
      sql`select count(*) as n from products_fts where products_fts match ${query}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))),
        Effect.map(([r]) => r?.n)
      )
    expect([yield* matching(`name_text : ("mug")`), yield* matching(`"ｍｕｇ"`)]).toEqual([count, 0])
    expect(yield* matching(`name_text : ("mug 4499")`)).toBe(1)
    // The trigger that keeps the index current is back.
    yield* sql`update products set name_text = ' teapot ' where id = ${id(100)}`
    expect(yield* matching(`name_text : ("teapot")`)).toBe(1)
  }).pipe(Effect.provide(SqliteStorage.client(":memory:"))), 60_000)
const Actions = Schema.Array(Schema.Struct({ name: Schema.String, action: Schema.String }))

/** The plan of `statement`, one line per step; Postgres is kept from scanning the table whole or sorting where it can. */
const planOf = (statement: Statement.Statement<unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [text, params] = statement.compile()
    const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    // A handful of rows: Postgres would read them all and sort them, whatever the indexes.
    const rows = pg
      ? yield* sql.withTransaction(Effect.zipRight(
        sql.unsafe("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off"),
        sql.unsafe(`EXPLAIN (COSTS OFF) ${text}`, params)
      ))
      : yield* sql.unsafe(`EXPLAIN QUERY PLAN ${text}`, params)
    return rows.map((row) => String(Object.values(row).at(-1))).join("\n")
  })

/** Each plan reads the index named for it under the same key, and sorts nothing. */
const expectReadInOrder = <K extends string>(plans: Record<K, string>, indexes: Record<K, string>) => {
  for (const [key, plan] of Object.entries<string>(plans)) {
    expect([key, plan]).toEqual([key, expect.stringContaining(indexes[key as K])])
    expect([key, plan]).toEqual([key, expect.not.stringMatching(/Sort|TEMP B-TREE/)])
  }
}

/** The plan of the audit log's statement for `filter`. */
const auditPlan = (organizationId: string, filter: Partial<AuditFilter>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => planOf(auditStatement(sql, organizationId, { limit: 50, offset: 0, ...filter })))

const migration32 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(30)
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  const at = (hour: number) => `2026-01-01T${String(hour).padStart(2, "0")}:00:00.000Z`
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(1)}, 'Org', 'org', ${at(0)}, ${at(0)})`
  // In the order they were recorded; the second was stamped before the first, the third at the first's instant.
  const events = [
    ["product.created", "product", at(10)],
    ["product_modifier.attached", "product_modifier", at(9)],
    ["media.association_updated", "media", at(10)],
    ["webhook.test", "connector", at(11)],
    ["catalog.v2.wiped", "catalog", at(12)],
    ["undotted", "catalog", at(12)],
    ["product.created", "product", at(8)]
  ] as const
  for (const [i, [name, entityType, createdAt]] of events.entries()) {
    yield* sql`insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at)
      values (${id(100 + i)}, ${id(1)}, ${name}, ${entityType}, ${id(2)}, 'user', ${id(3)}, '{}', ${createdAt})`
  }
  yield* migrate
  const stored = yield* sql`select name, action from events order by seq`.pipe(Effect.flatMap(Schema.decodeUnknown(Actions)))
  // As the audit log reads an event's action from its name.
  const actionOf = (name: string) => toCatalogEvent({ id: "", organizationId: "", name, entityType: "", entityId: "", actorType: "user", actorId: "", payload: {}, createdAt: "" }).action
  expect(stored.map((e) => e.action)).toEqual(["created", "attached", "association_updated", "test", "wiped", "undotted", "created"])
  expect(stored.map((e) => e.action)).toEqual(stored.map((e) => actionOf(e.name)))

  const page = (filter: Partial<AuditFilter>) =>
    Effect.map(auditPage(sql, id(1), { limit: 50, offset: 0, ...filter }), (p) => p.events.map((e) => e.id))
  // Newest first by the instant they were stamped, then by the order they were recorded.
  expect(yield* page({})).toEqual([105, 104, 103, 102, 100, 101, 106].map(id))
  expect(yield* page({ action: "created" })).toEqual([100, 106].map(id))
  expect(yield* page({ action: "test", entityType: "connector" })).toEqual([id(103)])
  expect(yield* page({ action: "created", since: at(9), until: at(12) })).toEqual([id(100)])

  // Plans by statistics: 3,000 variant updates through the day make each filter above a few rows among many.
  const filler = Array.from({ length: 3000 }, (_, i) => ({
    id: id(1000 + i),
    organizationId: id(1),
    name: "variant.updated",
    entityType: "variant",
    entityId: id(4),
    actorType: "user",
    actorId: id(3),
    payload: "{}",
    createdAt: new Date(Date.parse(at(0)) + i * 28_000).toISOString()
  }))
  for (let i = 0; i < filler.length; i += 500) yield* sql`insert into events ${sql.insert(filler.slice(i, i + 500))}`
  // Rows written after the migration get their action as well.
  expect((yield* auditPage(sql, id(1), { action: "updated", limit: 10, offset: 2990 })).events).toHaveLength(10)
  yield* sql.unsafe("ANALYZE")
  const plans = {
    all: yield* auditPlan(id(1), {}),
    window: yield* auditPlan(id(1), { since: at(9), until: at(12) }),
    type: yield* auditPlan(id(1), { entityType: "product" }),
    action: yield* auditPlan(id(1), { action: "created" }),
    actionWindow: yield* auditPlan(id(1), { action: "created", since: at(9), until: at(12) })
  }
  const indexes = { all: "events_org_created", window: "events_org_created", type: "events_org_type", action: "events_org_action", actionWindow: "events_org_action" }
  expectReadInOrder(plans, indexes)
})

it.effect("migration 32 derives each event's action from its name, old events and new, and the audit log reads every filter by organization, entity type or action, with or without dates, from an index in its order (SQLite)", () =>
  migration32.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 32 derives each event's action from its name, old events and new, and the audit log reads every filter by organization, entity type or action, with or without dates, from an index in its order (Postgres)", () =>
    migration32.pipe(Effect.provide(postgresClient)), 60_000)
})

const Queued = Schema.Array(Schema.Struct({ connectorId: Schema.String, eventId: Schema.String }))

const migration33 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(32)
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`
  const [no, yes] = sql.onDialectOrElse({ pg: () => [false, true], orElse: () => [0, 1] })
  for (const org of [1, 2]) {
    yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${id(org)}, ${`Org ${org}`}, ${`org-${org}`}, ${at(0)}, ${at(0)})`
  }
  // Two connectors of the first organization, one of the second.
  const connectors = [[10, 1, ["product.*"]], [11, 1, ["brand.created", "product.deleted"]], [12, 2, ["product.*"]]] as const
  for (const [n, org, events] of connectors) {
    yield* sql`insert into connectors (id, organization_id, type, name, destination_url, secret, events, extra_headers, created_at, updated_at)
      values (${id(n)}, ${id(org)}, 'headless', 'Shop', 'https://example.com/hook', 'whsec-0123456789abcdef', ${JSON.stringify(events)}, '{}', ${at(0)}, ${at(0)})`
  }
  // Waiting to be sent, but for the second, already sent.
  const events = [
    [100, 1, "product.created", no],
    [101, 1, "brand.created", yes],
    [102, 1, "brand.created", no],
    [103, 1, "product.deleted", no],
    [104, 2, "product.updated", no],
    [105, 1, "category.created", no]
  ] as const
  for (const [n, org, name, dispatched] of events) {
    yield* sql`insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at, dispatched)
      values (${id(n)}, ${id(org)}, ${name}, ${name.split(".")[0]!}, ${id(3)}, 'user', ${id(4)}, '{}', ${at(n - 99)}, ${dispatched})`
  }
  yield* migrate
  const queued = yield* sql`select connector_id, event_id from webhook_queue order by seq`.pipe(Effect.flatMap(Schema.decodeUnknown(Queued)))
  // Each waiting event, in the order written, for each connector of its organization that subscribes to it.
  expect(queued.map((q) => [q.eventId, q.connectorId])).toEqual([
    [id(100), id(10)],
    [id(102), id(11)],
    [id(103), id(10)],
    [id(103), id(11)],
    [id(104), id(12)]
  ])
  const columns = yield* sql`select * from events where id = ${id(100)}`
  expect(Object.keys(columns[0] ?? {})).not.toContain("dispatched")
  expect(Object.keys(columns[0] ?? {})).not.toContain("claimedBy")
})

it.effect("migration 33 queues each event still to send for every connector subscribed to it, in the order written (SQLite)", () =>
  migration33.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 33 queues each event still to send for every connector subscribed to it, in the order written (Postgres)", () =>
    migration33.pipe(Effect.provide(postgresClient)), 60_000)
})

const Ids = Schema.Array(Schema.Struct({ id: Schema.String }))

const migration38 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(37)
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  // Stamps that run against the ids, so that only the stamp gives the order.
  const at = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + (100_000 - n) * 1000).toISOString()
  const [org, productFamily, pages, rarePages] = [1, 2, 3, 4].map(id) as [string, string, string, string]
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${org}, 'Org', 'org', ${at(0)}, ${at(0)})`
  for (const [family, kind, code] of [[productFamily, "product", "goods"], [pages, "content", "pages"], [rarePages, "content", "rare"]] as const) {
    yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${family}, ${org}, ${code}, ${kind}, '{}', ${at(0)}, ${at(0)})`
  }
  // Forty products, each related to every other: a product's links are a few rows among many.
  const products = Array.from({ length: 40 }, (_, i) => id(100 + i))
  yield* sql`insert into products ${sql.insert(products.map((productId, i) => ({
    id: productId,
    organizationId: org,
    familyId: productFamily,
    name: `Mug ${i}`,
    slug: `mug-${i}`,
    status: "draft",
    attributes: "{}",
    tags: "[]",
    searchText: ` mug ${i} `,
    nameText: ` mug ${i} `,
    createdAt: at(0),
    updatedAt: at(0)
  })))}`
  const links = products.flatMap((productId) => products.filter((other) => other !== productId).map((relatedProductId) => ({ productId, relatedProductId })))
  const linkRows = links.map((link, i) => ({ id: id(10_000 + i), organizationId: org, ...link, type: "related", createdAt: at(10_000 + i) }))
  for (const chunk of chunksOf(linkRows, 200)) yield* sql`insert into product_relationships ${sql.insert(chunk)}`
  // 1,500 content pages, one in thirty archived and another one in thirty of the rare family.
  const pageRows = Array.from({ length: 1500 }, (_, i) => ({
    id: id(20_000 + i),
    organizationId: org,
    familyId: i % 30 === 7 ? rarePages : pages,
    title: `Page ${i}`,
    slug: `page-${i}`,
    status: i % 30 === 3 ? "archived" : i % 2 === 0 ? "active" : "draft",
    attributes: "{}",
    createdAt: at(20_000 + i),
    updatedAt: at(20_000 + i)
  }))
  for (const chunk of chunksOf(pageRows, 200)) yield* sql`insert into content_pages ${sql.insert(chunk)}`
  yield* migrate
  yield* sql.unsafe("ANALYZE")

  const linksPage = relationshipsStatement(sql, org, id(100), { limit: 51, offset: 0 })
  const pagesPage = (filter: Partial<ContentPageFilter>) => contentPagesStatement(sql, org, { limit: 50, offset: 0, ...filter })
  const ids = (statement: Statement.Statement<unknown>) => Effect.map(Effect.flatMap(statement, Schema.decodeUnknown(Ids)), (rows) => rows.map((r) => r.id))
  // Oldest first: the reverse of the ids.
  const newestFirst = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id).reverse()
  expect(yield* ids(linksPage)).toEqual(newestFirst(linkRows.filter((l) => l.productId === id(100))).slice(0, 51))
  expect(yield* ids(pagesPage({ status: "archived" }))).toEqual(newestFirst(pageRows.filter((p) => p.status === "archived")).slice(0, 50))
  expect(yield* ids(pagesPage({ familyId: rarePages }))).toEqual(newestFirst(pageRows.filter((p) => p.familyId === rarePages)).slice(0, 50))

  const plans = {
    links: yield* planOf(linksPage),
    pages: yield* planOf(pagesPage({})),
    status: yield* planOf(pagesPage({ status: "archived" })),
    family: yield* planOf(pagesPage({ familyId: rarePages }))
  }
  const indexes = { links: "product_relationships_order", pages: "content_pages_created", status: "content_pages_status_order", family: "content_pages_family_order" }
  expectReadInOrder(plans, indexes)
})

it.effect("migration 38 reads a page of a product's related products, and of content pages by status or family, from an index in their order (SQLite)", () =>
  migration38.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 38 reads a page of a product's related products, and of content pages by status or family, from an index in their order (Postgres)", () =>
    migration38.pipe(Effect.provide(postgresClient)), 60_000)
})

const AxisKeys = Schema.Array(Schema.Struct({ id: Schema.String, axisKey: Schema.NullOr(Schema.String) }))

const migration39 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* upTo(38)
  const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`
  const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`
  const org = id(1)
  const [shirts, mugs] = [id(2), id(3)]
  yield* sql`insert into organizations (id, name, slug, created_at, updated_at) values (${org}, 'Org', 'org', ${at(1)}, ${at(1)})`
  for (const [family, code] of [[shirts, "shirts"], [mugs, "mugs"]] as const) {
    yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, created_at, updated_at) values (${family}, ${org}, ${code}, 'product', '{}', ${at(1)}, ${at(1)})`
  }
  // The shirts' axes; `note` is no axis, and the mugs have none.
  const attributes = [[id(10), "size", "text", 1, 1], [id(11), "width", "decimal", 0, 1], [id(12), "labels", "tags", 0, 1], [id(13), "note", "text", 0, 0]] as const
  yield* sql`insert into attributes ${sql.insert(attributes.map(([attributeId, code, type, localizable, axis]) => ({
    id: attributeId, organizationId: org, code, entityKind: "product", label: "{}", type, isLocalizable: localizable, isScopable: 0,
    requirement: "available", isVariantAxis: axis, position: 0, createdAt: at(1), updatedAt: at(1)
  })))}`
  yield* sql`insert into family_attributes ${sql.insert(attributes.map(([attributeId]) => ({
    organizationId: org, familyId: shirts, attributeId, position: 0, createdAt: at(1), updatedAt: at(1)
  })))}`
  const [shirt, otherShirt, mug, manyShirt] = [id(20), id(21), id(22), id(23)]
  yield* sql`insert into products ${sql.insert([[shirt, shirts], [otherShirt, shirts], [mug, mugs], [manyShirt, shirts]].map(([productId, familyId], i) => ({
    id: productId, organizationId: org, familyId, name: `P ${i}`, slug: `p-${i}`, status: "draft", attributes: "{}", tags: "[]",
    searchText: ` p ${i} `, nameText: ` p ${i} `, createdAt: at(1), updatedAt: at(1)
  })))}`
  const values = (locale: string, width: string, labels: ReadonlyArray<string>) => ({
    size: [{ locale, channel: null, value: "M" }],
    width: [{ locale: null, channel: null, value: width }],
    labels: [{ locale: null, channel: null, value: labels }],
    note: [{ locale: null, channel: null, value: "kept" }]
  })
  // As older versions stored them: keys by code and as written, so these three were taken for three combinations.
  const variants = [
    [id(30), shirt, values("en-US", "12.5", ["wool", "winter"]), at(2)],
    [id(31), shirt, values("en-us", "12.50", ["winter", "wool"]), at(3)],
    [id(32), shirt, values("en-US", "13", ["wool"]), at(4)],
    [id(33), otherShirt, values("en-US", "12.5", ["wool", "winter"]), at(5)],
    [id(34), mug, {}, at(6)],
    // More than a batch, stamped alike: the pages follow the ids.
    ...Array.from({ length: 1100 }, (_, i) => [id(1000 + i), manyShirt, values("de", String(i), []), at(7)] as const)
  ] as const
  const rows = variants.map(([variantId, productId, attributeValues, createdAt], i) => ({
    id: variantId, organizationId: org, productId, sku: `SKU-${i}`, name: `V ${i}`, status: "draft", attributes: JSON.stringify(attributeValues),
    axisKey: productId === mug ? null : `stale ${i}`, position: i, createdAt, updatedAt: createdAt
  }))
  for (const chunk of chunksOf(rows, 200)) yield* sql`insert into variants ${sql.insert(chunk)}`
  yield* migrate

  const axes = attributes.filter(([, , , , axis]) => axis === 1).map(([attributeId, code, type]) => ({ attributeId, code, type }))
  const keyOf = (v: (typeof variants)[number]) => axisKey(axes, v[2] as Parameters<typeof axisKey>[1])
  const stored = yield* sql`select id, axis_key from variants order by id`.pipe(Effect.flatMap(Schema.decodeUnknown(AxisKeys)))
  expect(stored).toEqual(variants.map((v) => ({
    id: v[0],
    // The later of two variants that are now one combination keeps a key of its own; a product without axes has none.
    axisKey: v[1] === mug ? null : axisDigest(v[0] === id(31) ? `${keyOf(v)} ${v[0]}` : keyOf(v))
  })))
  // The database now holds the combination as the service compares it: the same values spelt otherwise are taken.
  const again = { ...rows[0]!, id: id(40), sku: "SKU-AGAIN", axisKey: axisDigest(keyOf(variants[1]!)) }
  expect((yield* Effect.flip(sql`insert into variants ${sql.insert(again)}`))._tag).toBe("SqlError")
})

it.effect("migration 39 writes every variant's axis key again as combinations are compared today, the later of two that are now one keeping a key by its id (SQLite)", () =>
  migration39.pipe(Effect.provide(SqliteStorage.client(":memory:"))))

describe.runIf(await postgresAvailable())("postgres", () => {
  it.effect("migration 39 writes every variant's axis key again as combinations are compared today, the later of two that are now one keeping a key by its id (Postgres)", () =>
    migration39.pipe(Effect.provide(postgresClient)), 60_000)
})
