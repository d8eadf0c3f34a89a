/**
 * npm run bench [-- --products 100000] [--only sqlite|postgres]
 *
 * Seeds one tenant with a realistic catalog through the public API and prints, per database,
 * median/p99 latency and throughput of import and the storefront reads, with ratios against
 * baselines measured in the same run.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { pick, random, TAGS } from "./Dataset.js"
import { rawInsert, type RawRow } from "./RawInsert.js"
import { type BenchServer, newTenant, request, startServer } from "./Server.js"
import { productItems, seedSchema } from "./Seed.js"
import { measure, merged, type Sample, type Summary, summarize, table } from "./Stats.js"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] ?? fallback : fallback
}
const PRODUCTS = Number(arg("products", "100000"))
const ONLY = arg("only", "")
const BATCH = 500
const READS = Number(arg("reads", "300"))
// The hello-world baseline answers in well under a millisecond: shorter runs measure a server
// still warming up and flatter the ratio, so the pair always runs at least this many requests.
const RATIO_BLOCKS = 20
const RATIO_REQUESTS = Math.ceil(Math.max(READS * 8, 8000) / RATIO_BLOCKS) * RATIO_BLOCKS
const adminUrl = process.env.CATALOG_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const BulkResults = Schema.Struct({ results: Schema.Array(Schema.Struct({ ok: Schema.Boolean, id: Schema.optional(Schema.String), error: Schema.optional(Schema.Unknown) })) })

const pgAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })),
      Effect.timeout("5 seconds")
    )
  )

const benchDatabase = async (label: string, server: BenchServer, raw: { readonly sqliteDir: string } | { readonly postgresUrl: string }) => {
  const api = await newTenant(server)
  const seeded = await seedSchema(api)
  const items = productItems(seeded, PRODUCTS)
  const ids: Array<string> = []

  const imported = await measure(`bulk import (${BATCH} per request)`, Math.ceil(items.length / BATCH), 1, async (b) => {
    const answer = Schema.decodeUnknownSync(BulkResults)((await api.call("POST", "/v1/products/bulk", { items: items.slice(b * BATCH, (b + 1) * BATCH) })).json)
    for (const r of answer.results) {
      if (!r.ok || r.id === undefined) throw new Error(`bulk item failed: ${JSON.stringify(r.error)}`)
      ids.push(r.id)
    }
  }, BATCH)
  const rows: Array<RawRow> = items.map((item, i) => ({
    id: ids[i] ?? String(i),
    name: item.name,
    slug: `raw-${item.slug}`,
    status: item.status,
    attributes: JSON.stringify(item.attributes),
    tags: JSON.stringify(item.tags)
  }))
  const rawSeconds = await rawInsert(raw, rows, BATCH)
  const importSummary = summarize(imported)
  const rawThroughput = rows.length / rawSeconds

  const next = random(7)
  const words = ["waterproof", "jacket", "organic", "lamp", "vintage", "boot", "wireles", "kettel"]
  const get = (path: () => string) => () => api.call("GET", path()).then(() => undefined)
  const helloWorld = () => request(`${server.baseUrl}/healthz`).then(() => undefined)
  const byIdRoute = get(() => `/v1/products/${pick(next, ids)}`)
  // Warm both routes up first: the ratio compares steady states, not JIT warm-up.
  await measure("warm-up", RATIO_REQUESTS, 8, helloWorld)
  await measure("warm-up", RATIO_REQUESTS, 8, byIdRoute)
  // In alternating blocks, so that a slower spell of a shared machine weighs on both alike.
  const helloBlocks: Array<Sample> = []
  const byIdBlocks: Array<Sample> = []
  for (let block = 0; block < RATIO_BLOCKS; block++) {
    helloBlocks.push(await measure("hello-world route (GET /healthz)", RATIO_REQUESTS / RATIO_BLOCKS, 8, helloWorld))
    byIdBlocks.push(await measure("GET /v1/products/{id}", RATIO_REQUESTS / RATIO_BLOCKS, 8, byIdRoute))
  }
  const hello = summarize(merged(helloBlocks))
  const byId = summarize(merged(byIdBlocks))
  const reads: Array<Summary> = []
  const read = async (name: string, path: () => string) => {
    await measure("warm-up", Math.ceil(READS / 5), 1, get(path))
    reads.push(summarize(await measure(name, READS, 1, get(path))))
  }
  await read("default list", () => "/v1/products")
  await read("filtered list (status, brand, tag)", () => `/v1/products?status=active&brandId=${pick(next, seeded.brands)}&tag=${pick(next, TAGS)}`)
  await read("category subtree list", () => `/v1/products?categoryId=${pick(next, seeded.roots)}&includeDescendants=true`)
  await read("money sort (price desc)", () => "/v1/products?sortBy=attribute&sortAttribute=price&sortDir=desc")
  await read("money range filter", () => {
    const min = Math.floor(next() * 90_000)
    return `/v1/products?filterAttribute=price&filterMin=${min}&filterMax=${min + 5_000}`
  })
  await read("q search (words, typos)", () => `/v1/products?q=${pick(next, words)}`)
  await read("facets, no filter", () => "/v1/products/facets")
  await read("facets, filtered", () => `/v1/products/facets?status=active&categoryId=${pick(next, seeded.roots)}&includeDescendants=true`)

  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`
  console.log(
    `\n${
      table(`${label}: ${PRODUCTS.toLocaleString("en")} products`, [
        { summary: importSummary, unit: "products/s", ratio: `${ratio(importSummary.throughput, rawThroughput)} of raw insert (${rawThroughput.toFixed(0)} rows/s)` },
        { summary: hello, unit: "req/s", ratio: "baseline" },
        { summary: byId, unit: "req/s", ratio: `${ratio(byId.throughput, hello.throughput)} of hello-world` },
        ...reads.map((summary) => ({ summary, unit: "req/s" }))
      ])
    }\n`
  )
}

const main = async () => {
  console.log(`node ${process.version}, ${PRODUCTS} products, ${READS} reads per query after a warm-up (by id and hello-world: ${RATIO_REQUESTS} each at concurrency 8, in ${RATIO_BLOCKS} alternating blocks)`)
  if (ONLY !== "postgres") {
    const server = await startServer(undefined)
    try {
      await benchDatabase("SQLite", server, { sqliteDir: server.dataDir })
    } finally {
      await server.stop()
    }
  }
  if (ONLY !== "sqlite") {
    const reachable = await pgAdmin("select 1").then(() => true, () => false)
    if (!reachable) {
      console.log(`Postgres at ${adminUrl} is unreachable: skipping it`)
      return
    }
    const name = `catalog_bench_${randomBytes(4).toString("hex")}`
    await pgAdmin(`CREATE DATABASE ${name}`)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    const server = await startServer(url.toString())
    try {
      await benchDatabase("PostgreSQL", server, { postgresUrl: url.toString() })
    } finally {
      await server.stop()
      await pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    }
  }
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
