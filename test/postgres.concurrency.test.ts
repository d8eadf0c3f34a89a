import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ownerConnection } from "./support/OwnerConnection.js"
import { postgresAvailable } from "./support/Postgres.js"
import { postgresDatabase, type TestDatabase } from "./support/TestDatabase.js"
import { startTestHost, type TestHost, type TestTenant } from "./support/TestHost.js"

const available = await postgresAvailable()

/**
 * Requests sent at once to the HTTP host on Postgres, where transactions really overlap (on
 * SQLite one connection writes one transaction at a time). Whatever the interleaving, each
 * request answers as if it ran alone before or after the others: never 500.
 */
describe.runIf(available)("postgres: concurrent requests", () => {
  let db: TestDatabase
  let host: TestHost
  let t: TestTenant
  let familyId: string
  beforeAll(async () => {
    db = await postgresDatabase()
    host = await startTestHost({ databaseUrl: db.url })
    t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: { en: "Lamps" } } })
    familyId = family.json.id
  }, 60_000)
  afterAll(async () => {
    await host?.close()
    await db?.drop()
  })

  /** `xs` in an order that `seed` decides. */
  const shuffled = <A>(xs: ReadonlyArray<A>, seed: number): Array<A> => {
    const out = [...xs]
    let state = seed
    for (let i = out.length - 1; i > 0; i--) {
      state = (state * 1103515245 + 12345) % 2147483648
      const j = state % (i + 1)
      ;[out[i], out[j]] = [out[j]!, out[i]!]
    }
    return out
  }
  /** Deadlocks Postgres has broken in the test's database, as its backends have reported them. */
  const deadlocks = async () => {
    const rows = await db.query("select deadlocks::int as n from pg_stat_database where datname = current_database()")
    return Number(rows[0]?.n)
  }
  /** Answers once `writes` statements of the service wait for locks another transaction holds. */
  const untilWritesWait = async (writes = 1) => {
    for (let waited = 0; ; waited++) {
      const rows = await db.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")
      if (Number(rows[0]?.n) >= writes) return
      if (waited > 200) throw new Error("no write waited for the held row")
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  const statuses = (responses: ReadonlyArray<{ readonly status: number }>) => responses.map((r) => r.status).sort()
  const product = (name: string, extra: Record<string, unknown> = {}) =>
    t.req("POST", "/v1/products", { body: { familyId, name, ...extra } })
  const slugsOf = async (slug: string) => {
    const r = await t.req("GET", `/v1/products?slug=${encodeURIComponent(slug)}`)
    expect(r.status).toBe(200)
    return r.json.data.length
  }

  // First in the file, so that no deadlock of another test is counted.
  it("imports bulk batches with overlapping slugs at once, in any order, without a deadlock: each slug created once, every other item a conflict", async () => {
    const before = await deadlocks()
    for (let round = 0; round < 2; round++) {
      const slugs = Array.from({ length: 150 }, (_, i) => `bulk-${round}-${String(i).padStart(3, "0")}`)
      // Each batch has the slugs in an order of its own.
      const orders = Array.from({ length: 8 }, (_, b) => shuffled(slugs, round * 8 + b + 1))
      const answers = await Promise.all(orders.map((order) =>
        t.req("POST", "/v1/products/bulk", { body: { items: order.map((slug) => ({ op: "create", familyId, name: slug, slug })) } })
      ))
      expect(answers.map((a) => a.status)).toEqual(orders.map(() => 200))
      const created = new Map<string, number>()
      for (const [b, order] of orders.entries()) {
        const results = answers[b]!.json.results as ReadonlyArray<{ index: number; ok: boolean; error?: { code: string } }>
        expect(results.map((r) => r.index)).toEqual(order.map((_, i) => i))
        for (const r of results) {
          if (r.ok) created.set(order[r.index]!, (created.get(order[r.index]!) ?? 0) + 1)
          else expect(r.error?.code).toBe("conflict")
        }
      }
      expect([...created.entries()].filter(([, n]) => n !== 1)).toEqual([])
      expect([...created.keys()].sort()).toEqual(slugs)
    }
    // Postgres breaks a deadlock after deadlock_timeout (1 s) by aborting one batch, which then runs
    // again; with many batches they ran out of runs and answered 500. A backend reports it within 1 s.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(await deadlocks() - before).toBe(0)
  }, 120_000)

  it("creates a product once when requests with one slug race: one 201, the others 409", async () => {
    for (let round = 0; round < 5; round++) {
      const slug = `race-${round}`
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => product(`Racer ${round} ${i}`, { slug })))
      expect(statuses(answers)).toEqual([201, 409, 409, 409, 409, 409])
      for (const a of answers.filter((a) => a.status === 409)) expect(a.json.error.code).toBe("conflict")
      expect(await slugsOf(slug)).toBe(1)
    }
  }, 60_000)

  it("gives a slug to one of a create and a rename racing for it, answering the other 409", async () => {
    for (let round = 0; round < 5; round++) {
      const slug = `contested-${round}`
      const other = await product(`Other ${round}`)
      const [created, renamed] = await Promise.all([
        product(`Contested ${round}`, { slug }),
        t.req("PATCH", `/v1/products/${other.json.id}`, { body: { slug } })
      ])
      const won = created.status === 201 ? "create" : "rename"
      expect([created.status, renamed.status]).toEqual(won === "create" ? [201, 409] : [409, 200])
      expect(await slugsOf(slug)).toBe(1)
    }
  }, 60_000)

  it("applies concurrent PATCHes of one product one after another, each answered 200: the slug, name and tags of one of them stand together", async () => {
    const lamp = await product("Patched lamp")
    const slugs = Array.from({ length: 6 }, (_, i) => `patched-${i}`)
    const answers = await Promise.all(slugs.map((slug, i) =>
      t.req("PATCH", `/v1/products/${lamp.json.id}`, { body: { slug, name: `Patched lamp ${i}`, tags: [`t${i}`] } })
    ))
    expect(statuses(answers)).toEqual(slugs.map(() => 200))
    const after = await t.req("GET", `/v1/products/${lamp.json.id}`)
    // The write that went last wrote all three fields together.
    const i = slugs.indexOf(after.json.slug)
    expect([after.json.name, after.json.tags]).toEqual([`Patched lamp ${i}`, [`t${i}`]])
  }, 60_000)

  it("deletes categories at once while bulk batches and PATCHes update the products filed in all of them, and none of them answers 500", async () => {
    for (let round = 0; round < 3; round++) {
      const shelves = await Promise.all(Array.from({ length: 8 }, (_, i) => t.req("POST", "/v1/categories", { body: { name: `Rack ${round} ${i}` } })))
      const shelfIds: ReadonlyArray<string> = shelves.map((c) => c.json.id)
      const made = await t.req("POST", "/v1/products/bulk", {
        body: { items: Array.from({ length: 60 }, (_, i) => ({ op: "create", familyId, name: `Racked ${round} ${i}`, categoryIds: shelfIds })) }
      })
      const ids: ReadonlyArray<string> = made.json.results.map((r: { id: string }) => r.id)
      const patched = ids.slice(0, 20)
      const answers = await Promise.all([
        t.req("POST", "/v1/products/bulk", { body: { items: ids.map((id) => ({ op: "update", id, tags: ["first"] })) } }),
        t.req("POST", "/v1/products/bulk", { body: { items: [...ids].reverse().map((id) => ({ op: "update", id, tags: ["second"] })) } }),
        ...patched.map((id) => t.req("PATCH", `/v1/products/${id}`, { body: { tags: ["third"] } })),
        ...shelfIds.map((id) => t.req("DELETE", `/v1/categories/${id}`))
      ])
      expect(answers.map((a) => a.status)).toEqual([200, 200, ...patched.map(() => 200), ...shelfIds.map(() => 204)])
      const listed = await t.req("GET", `/v1/products?ids=${ids.join(",")}&limit=200`)
      expect(listed.json.data.filter((p: { categoryIds: ReadonlyArray<string> }) => p.categoryIds.length > 0)).toEqual([])
    }
  }, 120_000)

  it("deletes a category once while products filed in it are written: 204 once, 404 for the other deletions, no link left", async () => {
    for (let round = 0; round < 4; round++) {
      const shelf = await t.req("POST", "/v1/categories", { body: { name: `Shelf ${round}` } })
      const stays = await t.req("POST", "/v1/categories", { body: { name: `Stays ${round}` } })
      const filed = await Promise.all(Array.from({ length: 6 }, (_, i) => product(`Filed ${round} ${i}`, { categoryIds: [shelf.json.id, stays.json.id] })))
      const ids: ReadonlyArray<string> = filed.map((p) => p.json.id)
      const writes = [
        // A PATCH that keeps the category, one that drops it, one that changes what the links copy.
        t.req("PATCH", `/v1/products/${ids[0]}`, { body: { categoryIds: [shelf.json.id], name: "Kept" } }),
        t.req("PATCH", `/v1/products/${ids[1]}`, { body: { categoryIds: [stays.json.id] } }),
        t.req("PATCH", `/v1/products/${ids[2]}`, { body: { tags: ["moved"] } }),
        t.req("POST", "/v1/products/bulk", {
          body: {
            items: [
              { op: "update", id: ids[3], categoryIds: [stays.json.id, shelf.json.id] },
              { op: "delete", id: ids[4] },
              { op: "create", familyId, name: `Late ${round}`, categoryIds: [shelf.json.id] }
            ]
          }
        }),
        product(`New ${round}`, { categoryIds: [shelf.json.id] })
      ]
      const deletions = [0, 1, 2].map(() => t.req("DELETE", `/v1/categories/${shelf.json.id}`))
      const answers = await Promise.all([...writes, ...deletions])
      const [kept, dropped, tagged, bulk, created, ...deleted] = answers
      expect(statuses(deleted)).toEqual([204, 404, 404])
      // A write naming the category either came first (and was unfiled) or found it gone (422); the others go through.
      expect([[200, 422].includes(kept!.status), [201, 422].includes(created!.status)]).toEqual([true, true])
      expect([dropped!.status, tagged!.status, bulk!.status]).toEqual([200, 200, 200])
      for (const r of bulk!.json.results as ReadonlyArray<{ ok: boolean; error?: { code: string } }>) {
        if (!r.ok) expect(r.error?.code).toBe("validation_failed")
      }
      const bulkCreated = (bulk!.json.results as ReadonlyArray<{ ok: boolean; id?: string }>).flatMap((r, i) => (i === 2 && r.ok ? [r.id!] : []))
      const written = [...ids, ...bulkCreated, ...(created!.status === 201 ? [created!.json.id as string] : [])]
      const all = await t.req("GET", `/v1/products?ids=${written.join(",")}&limit=200`)
      const filedIn = (all.json.data as ReadonlyArray<{ name: string; categoryIds: ReadonlyArray<string> }>)
        .filter((p) => p.categoryIds.includes(shelf.json.id))
        .map((p) => p.name)
      expect(filedIn).toEqual([])
      expect(written.filter((id) => !all.json.data.some((p: { id: string }) => p.id === id))).toEqual([ids[4]])
      const gone = await t.req("GET", `/v1/categories/${shelf.json.id}`)
      expect(gone.status).toBe(404)
    }
  }, 60_000)

  it("writes a bulk item for a product on what the product holds when an earlier item for it was refused as written", async () => {
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "rated_lamps", label: { en: "Rated lamps" } } })
    const watts = await t.req("POST", "/v1/attributes", { body: { code: "watts", label: { en: "Watts" }, type: "number", requirement: "required" } })
    expect((await t.req("POST", `/v1/attribute-families/${family.json.id}/attributes`, { body: { attributeId: watts.json.id } })).status).toBe(201)
    const rated = (name: string) =>
      t.req("POST", "/v1/products", { body: { familyId: family.json.id, name, tags: ["orig"], attributes: { watts: [{ locale: null, channel: null, value: 40 }] } } })
    const [p0, p1, p2, ...holders] = await Promise.all(["Kept", "Dropped", "Rated", "Holder", "Other holder", "Third holder"].map(rated))
    const [kept, dropped, third] = [p0!.json, p1!.json, p2!.json]
    // Another process holds three slugs without having committed: the batch finds them free when
    // it plans, and then waits on them while writing, until that process commits and they are taken.
    const owner = ownerConnection(db.url)
    try {
      const commit = await owner.hold((sql) =>
        sql`update products set slug = 'hot-' || (array_position(${holders.map((h) => h!.json.id)}::uuid[], id) - 1) where id in ${sql.in(holders.map((h) => h!.json.id))}`
      )
      const bulk = t.req("POST", "/v1/products/bulk", {
        body: {
          items: [
            { op: "update", id: kept.id, slug: "hot-0", tags: ["refused"], status: "archived" },
            // Its plan claimed the slug it asks for: planned again, the slug is still free for it.
            { op: "update", id: kept.id, name: "Kept, renamed", slug: "kept-renamed" },
            { op: "update", id: dropped.id, slug: "hot-1", name: "Refused name" },
            { op: "delete", id: dropped.id },
            // Planned on the refused removal, the activation would lack its watts; and the slug it
            // asks for, which its own plan claimed, is free.
            { op: "update", id: third.id, slug: "hot-2", attributes: { watts: [{ locale: null, channel: null, value: null }] } },
            { op: "update", id: third.id, slug: "rated-free", status: "active" }
          ]
        }
      })
      await untilWritesWait()
      await commit()
      const results = (await bulk).json.results as ReadonlyArray<{ ok: boolean; error?: { code: string; message: string } }>
      expect(results.map((r) => (r.ok ? "ok" : r.error?.code))).toEqual(["conflict", "ok", "conflict", "ok", "conflict", "ok"])
      expect(results[0]!.error?.message).toBe("product slug hot-0 is taken")
    } finally {
      await owner.close()
    }
    const after = (await t.req("GET", `/v1/products/${kept.id}`)).json
    expect([after.name, after.slug, after.tags, after.status]).toEqual(["Kept, renamed", "kept-renamed", ["orig"], kept.status])
    const activated = (await t.req("GET", `/v1/products/${third.id}`)).json
    expect([activated.slug, activated.status, activated.attributes.watts]).toEqual(["rated-free", "active", [{ locale: null, channel: null, value: 40 }]])
    const events = async (id: string) =>
      ((await t.req("GET", `/v1/audit-log?entity_id=${id}`)).json.data as ReadonlyArray<{ name: string; payload: unknown }>)
        .map((e) => [e.name, e.payload])
    expect(await events(kept.id)).toEqual([["product.updated", { changed_fields: ["name", "slug"] }], ["product.created", { slug: kept.slug }]])
    expect(await events(dropped.id)).toEqual([["product.deleted", { slug: dropped.slug }], ["product.created", { slug: dropped.slug }]])
    expect(await events(third.id)).toEqual([["product.updated", { changed_fields: ["slug", "status"] }], ["product.created", { slug: third.slug }]])
  }, 60_000)

  it("renames products of batches racing for the same slugs, in orders of their own, without a deadlock: each slug taken once, every other item a conflict", async () => {
    const before = await deadlocks()
    const slugs = Array.from({ length: 10 }, (_, i) => `raced-${i}`)
    const batches = await Promise.all(Array.from({ length: 6 }, async (_, b) =>
      Promise.all(slugs.map((_, i) => product(`Racer ${b}-${i}`)))
    ))
    const answers = await Promise.all(batches.map((created, b) =>
      t.req("POST", "/v1/products/bulk", {
        body: { items: shuffled(slugs, b + 1).map((slug, i) => ({ op: "update", id: created[i]!.json.id, slug })) }
      })
    ))
    expect(answers.map((a) => a.status)).toEqual(batches.map(() => 200))
    const won = answers.flatMap((a) => (a.json.results as ReadonlyArray<{ ok: boolean; error?: { code: string } }>).map((r) => (r.ok ? "ok" : r.error?.code)))
    expect([won.filter((r) => r === "ok").length, won.filter((r) => r !== "ok" && r !== "conflict")]).toEqual([slugs.length, []])
    expect(await Promise.all(slugs.map(slugsOf))).toEqual(slugs.map(() => 1))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(await deadlocks()).toBe(before)
  }, 60_000)

  it("names the slug, not the name, when a brand's slug is taken by a write committed while it was written", async () => {
    const [holder, other, patched] = await Promise.all(["Slug holder", "Other holder", "Patched"].map((name) =>
      t.req("POST", "/v1/brands", { body: { name } })
    ))
    // Another process takes the slugs without having committed: the writes find them free when
    // they check, and then wait on them while writing, until that process commits.
    const owner = ownerConnection(db.url)
    try {
      const commit = await owner.hold((sql) =>
        sql`update brands set slug = case when id = ${holder!.json.id} then 'hot-created' else 'hot-patched' end
            where id in ${sql.in([holder!.json.id, other!.json.id])}`
      )
      const created = t.req("POST", "/v1/brands", { body: { name: "Fresh brand", slug: "hot-created" } })
      await untilWritesWait(1)
      const updated = t.req("PATCH", `/v1/brands/${patched!.json.id}`, { body: { slug: "hot-patched" } })
      await untilWritesWait(2)
      await commit()
      const answers = await Promise.all([created, updated])
      expect(answers.map((a) => [a.status, a.json.error?.message])).toEqual([
        [409, "brand slug hot-created is taken"],
        [409, "brand slug hot-patched is taken"]
      ])
    } finally {
      await owner.close()
    }
  }, 60_000)
})
