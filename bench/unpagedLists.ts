/**
 * npx tsx bench/unpagedLists.ts [--items 5000] [--runs 7]
 *
 * The lists answered whole, on SQLite: `--items` categories (a third of them children of the
 * first hundred) and as many brands. Times `GET /v1/categories` and `GET /v1/brands` on the
 * real service in its own process, the items made through the API, and the repositories' `list`
 * in this process on a file of its own. Each time is the median of `--runs` runs after one to
 * warm up.
 */
import { SqlClient } from "@effect/sql"
import { Effect, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { Brand } from "../core/catalog/Brand.js"
import { BrandRepository } from "../core/catalog/BrandRepository.js"
import { Category } from "../core/catalog/Category.js"
import { CategoryRepository } from "../core/catalog/CategoryRepository.js"
import { idOf, newTenant, startServer } from "./Server.js"
import { measure } from "./Stats.js"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback
}
const ITEMS = Number(arg("items", "5000"))
const RUNS = Number(arg("runs", "7"))
const PARENTS = 100

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

const timed = async (label: string, run: () => Promise<number>) => {
  await run()
  const times: Array<number> = []
  let count = 0
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    count = await run()
    times.push(performance.now() - started)
  }
  console.log(`${label.padEnd(34)} ${count} items  median ${median(times).toFixed(1)} ms  (${times.map((t) => t.toFixed(0)).join(", ")})`)
}

const overHttp = async () => {
  const server = await startServer(undefined)
  try {
    const api = await newTenant(server)
    const parents: Array<string> = []
    const made = await measure("create", ITEMS, 8, async (i) => {
      const parentId = i >= PARENTS && i % 3 === 0 ? parents[i % PARENTS] : undefined
      const created = await api.call("POST", "/v1/categories", { name: `Category ${i}`, position: i % 7, ...(parentId !== undefined ? { parentId } : {}) })
      if (i < PARENTS) parents[i] = idOf(created.json)
      await api.call("POST", "/v1/brands", { name: `Brand ${i}` })
    })
    console.log(`made ${ITEMS} categories and ${ITEMS} brands over HTTP in ${made.seconds.toFixed(1)} s`)
    const count = (json: unknown) => (Array.isArray(json) ? json.length : 0)
    await timed("GET /v1/categories", async () => count((await api.call("GET", "/v1/categories")).json))
    await timed("GET /v1/brands", async () => count((await api.call("GET", "/v1/brands")).json))
  } finally {
    await server.stop()
  }
}

const inProcess = async () => {
  const dir = mkdtempSync(join(tmpdir(), "catalog-lists-"))
  const organizationId = randomUUID()
  const at = new Date().toISOString()
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const categories = yield* CategoryRepository
    const brands = yield* BrandRepository
    yield* sql`insert into organizations ${sql.insert({ id: organizationId, name: "Bench", slug: "bench", createdAt: at, updatedAt: at })}`
    const parents: Array<string> = []
    yield* sql.withTransaction(Effect.forEach(Array.from({ length: ITEMS }, (_, i) => i), (i) => {
      const id = randomUUID()
      if (i < PARENTS) parents.push(id)
      const common = { id, organizationId, name: `Item ${i}`, slug: `item-${i}`, attributes: {}, createdBy: null, updatedBy: null, createdAt: at, updatedAt: at }
      return Effect.zipRight(
        categories.insert(new Category({ ...common, parentId: i >= PARENTS && i % 3 === 0 ? parents[i % PARENTS] ?? null : null, position: i % 7 })),
        brands.insert(new Brand(common))
      )
    }, { discard: true }))
    const run = <A>(list: Effect.Effect<ReadonlyArray<A>>) => () => Effect.runPromise(Effect.map(list, (items) => items.length))
    return [run(categories.list(organizationId, {})), run(brands.list(organizationId, {}))] as const
  })
  const runtime = ManagedRuntime.make(SqliteStorage.layer(join(dir, "catalog.db")))
  try {
    const [categories, brands] = await runtime.runPromise(program)
    await timed("CategoryRepository.list", categories)
    await timed("BrandRepository.list", brands)
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

await inProcess()
await overHttp()
