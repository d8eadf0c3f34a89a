/**
 * npx tsx bench/auditLog.ts [--events 200000] [--only sqlite|postgres] [--runs 7] [--explain]
 *
 * The audit log before and after migration 32, on one organization with `--events` events
 * (and a second organization with a tenth as many beside it), on a SQLite file and on a fresh
 * Postgres database. The events are seeded on the schema of migration 30 and the previous
 * statement (a suffix of the name for `action`, newest first by event number) is timed; then
 * migration 32 runs (timed too) and the adapter's statement is timed on the same rows. Each
 * time is the median of `--runs` runs of the statement (with its decoding), each inside a tenant
 * transaction (as the application role under row-level security on Postgres), after one run to
 * warm up. Both answer the same page, which is checked. A tenth as many events again are written
 * (raw, 1,000 per statement) before and after the migration, to time what its indexes cost a write.
 */
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { auditStatement } from "../adapters/sql/AuditQuery.js"
import { decodeEventRows } from "../adapters/sql/EventRow.js"
import { migrate, migrateWith } from "../adapters/sql/Migrate.js"
import { migrations } from "../adapters/sql/migrations/index.js"
import * as SqlStorage from "../adapters/sql/SqlStorage.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import type { AuditFilter } from "../core/events/AuditEntry.js"
import { EventLog } from "../core/events/EventLog.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { pick, random } from "./Dataset.js"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback
}
const EVENTS = Number(arg("events", "200000"))
const ONLY = arg("only", "")
const RUNS = Number(arg("runs", "7"))
const EXPLAIN = process.argv.includes("--explain")
const adminUrl = process.env.CATALOG_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const BIG = "01900000-0000-7000-8000-0000000a0d17"
const SMALL = "01900000-0000-7000-8000-0000000a0d18"
/** An organization whose events are written before and after the migration, to time the writes. */
const WRITES = "01900000-0000-7000-8000-0000000a0d19"
const WRITTEN = Math.max(1000, Math.floor(EVENTS / 10))
const START = Date.UTC(2026, 0, 1)

/** What each kind of entity records, and how often: most events are product updates. */
const KINDS: ReadonlyArray<readonly [entityType: string, weight: number, actions: ReadonlyArray<readonly [string, number]>]> = [
  ["product", 70, [["created", 10], ["updated", 86], ["deleted", 4]]],
  ["variant", 10, [["created", 30], ["updated", 65], ["deleted", 5]]],
  ["media", 8, [["created", 30], ["attached", 40], ["association_updated", 20], ["detached", 8], ["deleted", 2]]],
  ["content_page", 4, [["created", 20], ["updated", 78], ["deleted", 2]]],
  ["category", 3, [["created", 30], ["updated", 65], ["deleted", 5]]],
  ["brand", 2, [["created", 30], ["updated", 65], ["deleted", 5]]],
  ["attribute", 1.5, [["created", 40], ["updated", 55], ["deleted", 5]]],
  ["product_modifier", 1.4, [["attached", 60], ["updated", 20], ["detached", 20]]],
  ["api_key", 0.1, [["created", 50], ["updated", 20], ["revoked", 30]]]
]

const weighted = <A>(next: () => number, items: ReadonlyArray<readonly [A, number]>): A => {
  const total = items.reduce((sum, [, w]) => sum + w, 0)
  let at = next() * total
  for (const [item, w] of items) {
    at -= w
    if (at < 0) return item
  }
  return items[items.length - 1]![0]
}

const uuid = (next: () => number) => {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`
}

interface Seeded {
  readonly firstAt: number
  readonly lastAt: number
  readonly productId: string
}

/**
 * Events of one organization as its writes record them: mostly one event per write, one write
 * in 50 a bulk of 50 to 500 events at one instant; writes `gap` / 2 ms apart on average (a
 * minute for the organization measured: its 200,000 events span about three weeks). 20
 * `webhook.test` entries in all (the rarest action).
 */
const writer = (organizationId: string, count: number, seed: number, gap: number, marks: Record<string, boolean | number>) => {
  const next = random(seed)
  const products = Array.from({ length: 20_000 }, () => uuid(next))
  const connector = uuid(next)
  const state = { at: START + Math.floor(next() * gap), written: 0, productId: "" }
  let nextTest = 0
  /** The events of the next write, stamped `state.at`; then the instant of the write after it. */
  const write = (): Array<Record<string, unknown>> => {
    const test = state.written >= nextTest
    if (test) nextTest += count / 20
    const bulk = !test && next() < 0.02 ? 50 + Math.floor(next() * 450) : 1
    const entityType = weighted(next, KINDS.map(([type, weight]) => [type, weight] as const))
    const actions = KINDS.find(([type]) => type === entityType)![2]
    const rows: Array<Record<string, unknown>> = []
    for (let i = 0; i < bulk && state.written < count; i++, state.written++) {
      const [name, type, entityId] = test
        ? ["webhook.test", "connector", connector]
        : [`${entityType}.${weighted(next, actions)}`, entityType, entityType === "product" ? pick(next, products) : uuid(next)]
      if (type === "product") state.productId = entityId
      rows.push({
        id: uuid(next),
        organizationId,
        name,
        entityType: type,
        entityId,
        actorType: "user",
        actorId: connector,
        payload: "{}",
        createdAt: new Date(state.at).toISOString(),
        ...marks
      })
    }
    state.at += Math.floor(next() * gap)
    return rows
  }
  return { state, write, done: () => state.written >= count }
}

/**
 * Seeds the organizations' events, their writes interleaved in time as they would arrive, 1,000
 * rows per statement; answers, per organization, its first and last instants and a product.
 */
const seedEvents = (
  organizations: ReadonlyArray<{ readonly organizationId: string; readonly count: number; readonly seed: number; readonly gap: number }>,
  marked: boolean
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Up to migration 33 an event carries its delivery mark (sent); migration 33 drops it.
    const marks = marked ? { dispatched: sql.onDialectOrElse({ pg: () => true as boolean | number, orElse: () => 1 }) } : {}
    const writers = organizations.map((o) => writer(o.organizationId, o.count, o.seed, o.gap, marks))
    const lastAt = writers.map(() => START)
    const rows: Array<Record<string, unknown>> = []
    const flush = Effect.suspend(() => {
      const chunk = rows.splice(0, rows.length)
      return chunk.length === 0 ? Effect.void : Effect.asVoid(sql.withTransaction(sql`insert into events ${sql.insert(chunk)}`))
    })
    for (;;) {
      let first = -1
      for (const [i, w] of writers.entries()) {
        if (!w.done() && (first < 0 || w.state.at < writers[first]!.state.at)) first = i
      }
      if (first < 0) break
      lastAt[first] = writers[first]!.state.at
      rows.push(...writers[first]!.write())
      if (rows.length >= 1000) yield* flush
    }
    yield* flush
    return writers.map((w, i): Seeded => ({ firstAt: START, lastAt: lastAt[i]!, productId: w.state.productId }))
  })

/** The statement the audit log ran before migration 32. */
const previousStatement = (sql: SqlClient.SqlClient, organizationId: string, f: AuditFilter) => {
  const conditions = [sql`organization_id = ${organizationId}`]
  if (f.entityType !== undefined) conditions.push(sql`entity_type = ${f.entityType}`)
  if (f.entityId !== undefined) conditions.push(sql`entity_id = ${f.entityId}`)
  if (f.action !== undefined) conditions.push(sql`substr(name, length(name) - ${f.action.length}) = ${`.${f.action}`}`)
  if (f.since !== undefined) conditions.push(sql`created_at >= ${f.since}`)
  if (f.until !== undefined) conditions.push(sql`created_at < ${f.until}`)
  return sql`select * from events where ${sql.and(conditions)}
             order by seq desc limit ${f.limit + 1} offset ${f.offset}`
}

const previousPage = (organizationId: string, f: AuditFilter) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* previousStatement(sql, organizationId, f).pipe(Effect.flatMap(decodeEventRows))
    return rows.slice(0, f.limit).map((r) => r.id)
  }).pipe(Effect.orDie)

const currentPage = (organizationId: string, f: AuditFilter) =>
  Effect.flatMap(EventLog, (events) => Effect.map(events.list(organizationId, f), (page) => page.events.map((e) => e.id)))

const cases = (s: Seeded): ReadonlyArray<readonly [string, Partial<AuditFilter>]> => {
  const iso = (ms: number) => new Date(ms).toISOString()
  const day = 86_400_000
  const middle = Math.floor((s.firstAt + s.lastAt) / 2 / day) * day
  return [
    ["no filter", {}],
    ["offset=10000", { offset: 10_000 }],
    ["entity_type=product", { entityType: "product" }],
    ["entity_type=brand", { entityType: "brand" }],
    ["entity_id=<a product>", { entityId: s.productId }],
    ["action=updated", { action: "updated" }],
    ["action=deleted", { action: "deleted" }],
    ["action=revoked", { action: "revoked" }],
    ["action=test (20 events)", { action: "test" }],
    ["entity_type=product&action=deleted", { entityType: "product", action: "deleted" }],
    ["entity_type=brand&action=deleted", { entityType: "brand", action: "deleted" }],
    ["action=deleted&offset=1000", { action: "deleted", offset: 1000 }],
    ["since=<last 2 hours>", { since: iso(s.lastAt - 2 * 3_600_000) }],
    ["until=<first day>", { until: iso(s.firstAt + day) }],
    ["date=<a day mid-way>", { since: iso(middle), until: iso(middle + day) }],
    ["action=deleted&date=<a day mid-way>", { action: "deleted", since: iso(middle), until: iso(middle + day) }]
  ]
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const result = yield* effect
    return [performance.now() - started, result] as const
  })

/** The median time of `page` inside a tenant transaction (its statement alone), and the page it answered. */
const measure = <E, R>(page: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  Effect.gen(function*() {
    const uow = yield* UnitOfWork
    const ids = yield* uow.tenant(BIG, page)
    const times: Array<number> = []
    for (let i = 0; i < RUNS; i++) times.push((yield* uow.tenant(BIG, timed(page)))[0])
    return { ms: median(times), ids }
  })

/** Prints the plan of `statement` (`previousStatement` or `auditStatement`) for `f`, run as the tenant. */
const explain = (statement: typeof auditStatement, f: AuditFilter) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [text, params] = statement(sql, BIG, f).compile()
    const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const plan = yield* (yield* UnitOfWork).tenant(BIG, sql.unsafe(`${pg ? "EXPLAIN (ANALYZE, COSTS OFF)" : "EXPLAIN QUERY PLAN"} ${text}`, params))
    console.log(JSON.stringify(f), "\n ", plan.map((row) => Object.values(row).at(-1)).join("\n  "))
  })

/** This version's migrations up to `last`. */
const upTo = (last: number) => Object.fromEntries(Object.entries(migrations).filter(([key]) => Number(key.split("_")[0]) <= last))

const analyze = Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("ANALYZE"))

const bench = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({ loader: Migrator.fromRecord(upTo(30)) })
  for (const id of [BIG, SMALL, WRITES]) {
    yield* sql`insert into organizations ${sql.insert({ id, name: id, slug: id, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" })}`
  }
  const [seedMs, [seeded]] = yield* timed(seedEvents([
    { organizationId: BIG, count: EVENTS, seed: 1, gap: 120_000 },
    { organizationId: SMALL, count: Math.floor(EVENTS / 10), seed: 2, gap: 1_200_000 }
  ], true))
  if (seeded === undefined) return yield* Effect.dieMessage("nothing seeded")
  yield* analyze
  console.log(`seeded ${EVENTS} + ${Math.floor(EVENTS / 10)} events in ${(seedMs / 1000).toFixed(1)} s`)
  const all = cases(seeded).map(([label, f]) => [label, { limit: 50, offset: 0, ...f }] as const)
  const previous: Array<{ ms: number; ids: ReadonlyArray<string> }> = []
  for (const [, f] of all) {
    if (EXPLAIN) yield* explain(previousStatement, f)
    previous.push(yield* measure(previousPage(BIG, f)))
  }
  const [writesBeforeMs] = yield* timed(seedEvents([{ organizationId: WRITES, count: WRITTEN, seed: 3, gap: 120_000 }], true))
  const [migrationMs] = yield* timed(migrateWith(upTo(32)))
  yield* migrate
  yield* analyze
  const rows: Array<string> = []
  for (const [i, [label, f]] of all.entries()) {
    if (EXPLAIN) yield* explain(auditStatement, f)
    const after = yield* measure(currentPage(BIG, f))
    const was = previous[i]!
    if (JSON.stringify(after.ids) !== JSON.stringify(was.ids)) throw new Error(`${label}: the pages differ`)
    rows.push(`| ${label} | ${after.ids.length} | ${was.ms.toFixed(2)} | ${after.ms.toFixed(2)} |`)
  }
  const [writesAfterMs] = yield* timed(seedEvents([{ organizationId: WRITES, count: WRITTEN, seed: 4, gap: 120_000 }], false))
  const rate = (ms: number) => Math.round(WRITTEN / (ms / 1000)).toLocaleString("en")
  return [
    `migration 32: ${(migrationMs / 1000).toFixed(1)} s`,
    `${WRITTEN.toLocaleString("en")} more events written (1,000 per statement): ${rate(writesBeforeMs)}/s before, ${rate(writesAfterMs)}/s after`,
    "",
    "| request | rows | ms before | ms after |",
    "|---|---:|---:|---:|",
    ...rows
  ].join("\n")
})

/** The bench on a storage over `client` (migrated by the bench itself). */
const run = <E>(label: string, client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Effect.gen(function*() {
    console.log(`\n## ${label}, ${EVENTS} events\n`)
    console.log(yield* bench)
  }).pipe(Effect.provide(SqlStorage.repositories.pipe(Layer.provideMerge(client))))

const sqlite = Effect.acquireUseRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "audit-bench-"))),
  (dir) => run("SQLite", SqliteStorage.client(join(dir, "catalog.db"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const admin = (statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 }))
  )

const postgres = Effect.acquireUseRelease(
  Effect.gen(function*() {
    const name = `catalog_bench_${randomBytes(6).toString("hex")}`
    yield* admin(`CREATE DATABASE ${name}`)
    return name
  }),
  (name) => {
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return run("Postgres", PostgresStorage.client(url.toString(), 2))
  },
  (name) => Effect.orDie(admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
)

await Effect.runPromise(
  Effect.gen(function*() {
    if (ONLY !== "postgres") yield* sqlite
    if (ONLY !== "sqlite") yield* postgres
  }).pipe(Effect.orDie)
)
