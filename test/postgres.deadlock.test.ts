import { SqlClient } from "@effect/sql"
import { assert, describe, expect, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Exit, Fiber, Layer, Option, Ref, Schedule, Schema, Stream, TestServices } from "effect"
import * as MemoryBlobStore from "../adapters/blobs/MemoryBlobStore.js"
import * as SqlStorage from "../adapters/sql/SqlStorage.js"
import * as MemoryWebhookSender from "../adapters/webhooks/MemoryWebhookSender.js"
import { Brands } from "../core/catalog/Brands.js"
import { Categories } from "../core/catalog/Categories.js"
import { ConnectorRepository } from "../core/connectors/ConnectorRepository.js"
import { Products } from "../core/products/Products.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { BlobStore } from "../core/shared/BlobStore.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { OrganizationRepository } from "../core/tenancy/OrganizationRepository.js"
import { Organizations } from "../core/tenancy/Organizations.js"
import { catalogLayer } from "../index.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { outcomeOf } from "./support/CatalogFixtures.js"
import { familyWith } from "./support/Families.js"
import { postgresAvailable, postgresClient, postgresStorage } from "./support/Postgres.js"

const available = await postgresAvailable()

const Names = Schema.Array(Schema.Struct({ name: Schema.String }))

/**
 * An organization's export waits at its gate's `written` until `go` opens: a deletion paused
 * between reading its tenant and its cascade.
 */
const gates = new Map<string, { readonly written: Deferred.Deferred<void>; readonly go: Deferred.Deferred<void> }>()
const gateOf = (organizationId: string) => {
  const gate = gates.get(organizationId) ?? { written: Effect.runSync(Deferred.make<void>()), go: Effect.runSync(Deferred.make<void>()) }
  gates.set(organizationId, gate)
  return gate
}
const GatedBlobs = Layer.effect(
  BlobStore,
  Effect.map(BlobStore, (blobs) =>
    BlobStore.of({
      ...blobs,
      put: (key, bytes) => {
        if (!key.startsWith("exports/")) return blobs.put(key, bytes)
        const gate = gateOf(key.split("/")[1]!)
        return Deferred.succeed(gate.written, undefined).pipe(Effect.zipRight(Deferred.await(gate.go)), Effect.zipRight(blobs.put(key, bytes)))
      }
    }))
).pipe(Layer.provide(MemoryBlobStore.layer))

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

    it.effect("records a delivery and deletes its organization at once without a deadlock", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const organizations = yield* OrganizationRepository
        const connectors = yield* ConnectorRepository
        const org = "01900000-0000-7000-8000-0000000000d2"
        const connector = "01900000-0000-7000-8000-0000000000c2"
        yield* sql`insert into organizations ${sql.insert({ id: org, name: "Org", slug: "deadlock-delivery", createdAt: "t", updatedAt: "t" })}`
        yield* sql`insert into connectors ${
          sql.insert({
            id: connector,
            organizationId: org,
            type: "headless",
            name: "c",
            destinationUrl: "https://203.0.113.10/hook",
            secret: "0123456789abcdef",
            events: "[]",
            extraHeaders: "{}",
            createdAt: "t",
            updatedAt: "t"
          })
        }`
        const attempt = {
          id: "01900000-0000-7000-8000-0000000000a2",
          eventId: "01900000-0000-7000-8000-0000000000b2",
          eventName: "product.created",
          attemptedAt: "2026-01-01T00:00:00.000Z",
          durationMs: 1,
          status: 200,
          ok: true,
          error: null
        }
        const runs = yield* Ref.make(0)
        const held = yield* Deferred.make<void>()
        const go = yield* Deferred.make<void>()
        const waiting = sql`select count(*)::int as n from pg_stat_activity
                            where datname = current_database() and wait_event_type = 'Lock'`.pipe(
          Effect.map((rows) => Number((rows[0] as { n: number }).n) > 0)
        )
        // The deletion holds the organization, then cascades once the recording waits on a lock:
        // the recording must wait for the organization before it holds the connector.
        const deletion = uow.system(Effect.gen(function*() {
          yield* Ref.update(runs, (n) => n + 1)
          expect(yield* organizations.holdForDeletion(org)).toBe(true)
          yield* Deferred.succeed(held, undefined)
          yield* Deferred.await(go)
          return yield* organizations.deleteCascade(org)
        }))
        const recording = Effect.zipRight(
          Deferred.await(held),
          uow.system(Effect.zipRight(Ref.update(runs, (n) => n + 1), connectors.recordDelivery(org, connector, attempt, 50)))
        )
        // Watched from outside the deletion's transaction, which sees one snapshot of the activity.
        const watch = Effect.zipRight(
          Deferred.await(held),
          Effect.repeat(waiting, { until: (some) => some, schedule: Schedule.spaced("20 millis") })
        ).pipe(Effect.zipRight(Deferred.succeed(go, undefined)))
        const [counts] = yield* Effect.all([deletion, recording, watch], { concurrency: "unbounded" })
        expect(counts.connectors).toBe(1)
        // Neither was aborted to break a deadlock and run again.
        expect(yield* Ref.get(runs)).toBe(2)
        const left = yield* sql`select id from connector_deliveries where organization_id = ${org}`
        expect(left).toHaveLength(0)
      })))
  })

  layer(catalogOver(postgresStorage), { timeout: 60_000 })("product writes", (it) => {
    it.effect("inserts overlapping slugs of two batches in one order, so one waits for the other instead of deadlocking", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const products = yield* Products
        const { organization, tenant } = yield* newTenant
        const org = organization.id
        const family = yield* familyWith(tenant, "product", [])
        const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
        const runs = yield* Ref.make(0)
        const release = yield* Deferred.make<void>()
        const holding = yield* Deferred.make<void>()
        const waiting = sql`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
                            where a.datname = current_database() and l.locktype = 'transactionid' and not l.granted`.pipe(
          Effect.map((rows) => Number((rows[0] as { n: number }).n))
        )
        // A third writer holds the slug in the middle until both batches wait for it, then rolls back:
        // each batch then holds the slug it inserted first, and goes on to the middle one and past it.
        const holder = uow.tenant(org, Effect.gen(function*() {
          yield* as(products.create({ familyId: family.id, name: "Held", slug: "lamp-m" }))
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(release)
          return yield* Effect.fail("rolled back" as const)
        }))
        const batch = (slugs: ReadonlyArray<string>) =>
          uow.tenant(org, Effect.zipRight(
            Ref.update(runs, (n) => n + 1),
            as(products.bulk(slugs.map((slug) => ({ op: "create", familyId: family.id, name: slug, slug }))))
          ))
        const [, first, second] = yield* Effect.all([
          Effect.exit(holder),
          Effect.zipRight(Deferred.await(holding), batch(["lamp-a", "lamp-m", "lamp-z"])),
          Effect.zipRight(Deferred.await(holding), batch(["lamp-z", "lamp-m", "lamp-a"])),
          Effect.zipRight(
            Deferred.await(holding),
            Effect.repeat(waiting, { until: (n) => n >= 2, schedule: Schedule.spaced("20 millis") })
          ).pipe(Effect.zipRight(Deferred.succeed(release, undefined)))
        ], { concurrency: "unbounded" })
        // Neither was aborted to break a deadlock and run again.
        expect(yield* Ref.get(runs)).toBe(2)
        const outcomes = [first, second].map((results) => results.map((r) => (r.ok ? "ok" : r.error._tag)))
        expect(outcomes.sort()).toEqual([["Conflict", "Conflict", "Conflict"], ["ok", "ok", "ok"]])
      })))

    it.effect("inserts the items of two batches refused as a whole one by one in one order too, so they do not deadlock then either", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const products = yield* Products
        const { organization, tenant } = yield* newTenant
        const org = organization.id
        const family = yield* familyWith(tenant, "product", [])
        const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
        const runs = yield* Ref.make(0)
        // A writer holding `slug` until `go`, as the backend `pid` tells, then committing or rolling back.
        const holder = (slug: string, commit: boolean) =>
          Effect.gen(function*() {
            const pid = yield* Deferred.make<number>()
            const go = yield* Deferred.make<void>()
            const run = uow.tenant(org, Effect.gen(function*() {
              yield* as(products.create({ familyId: family.id, name: slug, slug }))
              const [row] = yield* sql`select pg_backend_pid() as pid`
              yield* Deferred.succeed(pid, Number((row as { pid: number }).pid))
              yield* Deferred.await(go)
              if (!commit) return yield* Effect.fail("rolled back" as const)
            }))
            return { pid, go, run: Effect.exit(run) }
          })
        const taken = yield* holder("lamp-k", true)
        const middle = yield* holder("lamp-m", false)
        const blockers = sql`select pg_blocking_pids(a.pid) as pids from pg_stat_activity a
                             where a.datname = current_database() and cardinality(pg_blocking_pids(a.pid)) > 0`.pipe(
          Effect.map((rows) => rows.map((r) => (r as { pids: ReadonlyArray<number> }).pids))
        )
        const batch = (slugs: ReadonlyArray<string>) =>
          uow.tenant(org, Effect.zipRight(
            Ref.update(runs, (n) => n + 1),
            as(products.bulk(slugs.map((slug) => ({ op: "create", familyId: family.id, name: slug, slug }))))
          ))
        const held = Effect.all([Deferred.await(taken.pid), Deferred.await(middle.pid)])
        const [, , first, second] = yield* Effect.all([
          taken.run,
          middle.run,
          Effect.zipRight(held, batch(["lamp-a", "lamp-k", "lamp-m", "lamp-z"])),
          Effect.zipRight(held, batch(["lamp-z", "lamp-k", "lamp-m", "lamp-a"])),
          Effect.gen(function*() {
            const [takenPid, middlePid] = yield* held
            // Both batches wait in their insert of every item at once for the slug `taken` holds,
            // which it then commits: neither insert can go in, and each batch goes on item by item.
            yield* Effect.repeat(blockers, { until: (b) => b.length === 2, schedule: Schedule.spaced("20 millis") })
            yield* Deferred.succeed(taken.go, undefined)
            // Both wait again, no longer for `taken`: one batch for the slug `middle` holds, the other for
            // that one, or (in item order) both for `middle`, each holding a slug the other comes to next.
            yield* Effect.repeat(blockers, {
              until: (b) => b.length === 2 && b.every((pids) => !pids.includes(takenPid)) && b.some((pids) => pids.includes(middlePid)),
              schedule: Schedule.spaced("20 millis")
            })
            yield* Deferred.succeed(middle.go, undefined)
          })
        ], { concurrency: "unbounded" })
        // Neither was aborted to break a deadlock and run again.
        expect(yield* Ref.get(runs)).toBe(2)
        const outcomes = [first, second].map((results) => results.map((r) => (r.ok ? "ok" : r.error._tag)))
        expect(outcomes.sort()).toEqual([["Conflict", "Conflict", "Conflict", "Conflict"], ["ok", "Conflict", "ok", "ok"]])
      })))

    /** Two products filed in a category and of a brand, made one after the other, and what a batch and a deletion need. */
    const filedPair = Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      const family = yield* familyWith(tenant, "product", [])
      const shelf = yield* as(Effect.flatMap(Categories, (c) => c.create({ name: "Shelf" })))
      const stays = yield* as(Effect.flatMap(Categories, (c) => c.create({ name: "Stays" })))
      const brand = yield* as(Effect.flatMap(Brands, (b) => b.create({ name: "Lumen" })))
      const products = yield* Products
      const make = (name: string) => as(products.create({ familyId: family.id, name, brandId: brand.id, categoryIds: [shelf.id, stays.id], tags: ["old"] }))
      const first = yield* make("First")
      const second = yield* make("Second")
      const runs = yield* Ref.make(0)
      const counted = <A, E, R>(e: Effect.Effect<A, E, R>) =>
        Effect.flatMap(UnitOfWork, (uow) => uow.tenant(organization.id, Effect.zipRight(Ref.update(runs, (n) => n + 1), as(e))))
      return { org: organization.id, as, shelf, stays, brand, first, second, runs, counted }
    })
    const waiters = Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`select count(*)::int as n from pg_stat_activity a
          where a.datname = current_database() and cardinality(pg_blocking_pids(a.pid)) > 0`.pipe(
        Effect.map((rows) => Number((rows[0] as { n: number }).n))
      ))
    /** Holds `statement`'s rows in a transaction of `org` until `go`, then commits. */
    const rowHolder = (org: string, statement: string) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const holding = yield* Deferred.make<void>()
        const go = yield* Deferred.make<void>()
        const run = uow.tenant(org, Effect.gen(function*() {
          yield* sql.unsafe(statement)
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(go)
        }))
        return { holding, go, run }
      })

    for (const write of ["bulk", "patch"] as const) {
      it.effect(`reads the product of a ${write === "bulk" ? "bulk batch" : "PATCH"} once it holds it, so a category deletion it waited for is not written back`, () =>
        TestServices.provideLive(Effect.gen(function*() {
          const products = yield* Products
          const categories = yield* Categories
          const { as, counted, first, org, runs, second, shelf, stays } = yield* filedPair
          // The deletion holds the products, then waits to remove the second one's link, held here.
          const link = yield* rowHolder(org, `select 1 from product_categories where product_id = '${second.id}' and category_id = '${shelf.id}' for update`)
          const tagged = write === "bulk"
            ? Effect.asVoid(products.bulk([{ op: "update", id: first.id, tags: ["new"] }]))
            : Effect.asVoid(products.update(first.id, { tags: ["new"] }))
          const [, deleted] = yield* Effect.all([
            link.run,
            Effect.zipRight(Deferred.await(link.holding), Effect.exit(as(categories.delete(shelf.id)))),
            Effect.zipRight(
              Effect.zipRight(Deferred.await(link.holding), Effect.repeat(waiters, { until: (n) => n >= 1, schedule: Schedule.spaced("20 millis") })),
              counted(tagged)
            ),
            Effect.zipRight(
              Deferred.await(link.holding),
              Effect.repeat(waiters, { until: (n) => n >= 2, schedule: Schedule.spaced("20 millis") })
            ).pipe(Effect.zipRight(Deferred.succeed(link.go, undefined)))
          ], { concurrency: "unbounded" })
          expect(Exit.isSuccess(deleted)).toBe(true)
          // It read the product after the deletion: it did not write the link back and fail on the key.
          expect(yield* Ref.get(runs)).toBe(1)
          const after = yield* as(products.get(first.id, {}))
          const links = yield* Effect.flatMap(UnitOfWork, (uow) =>
            uow.tenant(org, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`select category_id from product_categories where product_id = ${first.id}`)))
          expect([links.map((l) => (l as { categoryId: string }).categoryId), after.tags]).toEqual([[stays.id], ["new"]])
        })))
    }

    for (const write of ["bulk", "patch"] as const) {
      it.effect(`holds the brands and categories a ${write === "bulk" ? "bulk batch" : "PATCH"} names before its product, as their deletions do, so they do not deadlock`, () =>
        TestServices.provideLive(Effect.gen(function*() {
          const products = yield* Products
          const categories = yield* Categories
          const { brand, counted, first, org, runs, shelf, stays } = yield* filedPair
          // The write waits for the brand it names, held here; the category it names is deleted meanwhile.
          const held = yield* rowHolder(org, `select 1 from brands where id = '${brand.id}' for update`)
          const patch = { brandId: brand.id, categoryIds: [stays.id, shelf.id] }
          const outcome = write === "bulk"
            ? Effect.map(products.bulk([{ op: "update", id: first.id, ...patch }]), (r) => (r[0]?.ok ? "ok" : r[0]?.error._tag))
            : Effect.map(Effect.either(products.update(first.id, patch)), (r) => (r._tag === "Right" ? "ok" : r.left._tag))
          const [, written, deleted] = yield* Effect.all([
            held.run,
            Effect.zipRight(Deferred.await(held.holding), counted(outcome)),
            Effect.zipRight(
              Effect.zipRight(Deferred.await(held.holding), Effect.repeat(waiters, { until: (n) => n >= 1, schedule: Schedule.spaced("20 millis") })),
              Effect.exit(counted(categories.delete(shelf.id)))
            ),
            Effect.zipRight(
              Deferred.await(held.holding),
              Effect.repeat(waiters, { until: (n) => n >= 2, schedule: Schedule.spaced("100 millis"), times: 10 })
            ).pipe(Effect.zipRight(Deferred.succeed(held.go, undefined)))
          ], { concurrency: "unbounded" })
          expect(Exit.isSuccess(deleted)).toBe(true)
          // The deletion went first: the write found the category gone.
          expect(written).toBe("ValidationFailed")
          expect(yield* Ref.get(runs)).toBe(2)
        })))
    }

    for (const kind of ["category", "brand"] as const) {
      it.effect(`holds a batch's products and a ${kind} deletion's in one order, so they do not deadlock`, () =>
        TestServices.provideLive(Effect.gen(function*() {
          const products = yield* Products
          const { as, brand, counted, first, org, runs, second, shelf } = yield* filedPair
          const deletion: Effect.Effect<void, unknown, CurrentTenant | Categories | Brands> = kind === "category"
            ? Effect.flatMap(Categories, (c) => c.delete(shelf.id))
            : Effect.flatMap(Brands, (b) => b.delete(brand.id))
          // The batch writes the second product first and then waits, holding it, for that product's tag.
          const tag = yield* rowHolder(org, `select 1 from product_tags where product_id = '${second.id}' for update`)
          const [, batch] = yield* Effect.all([
            tag.run,
            Effect.zipRight(
              Deferred.await(tag.holding),
              counted(products.bulk([second, first].map((p) => ({ op: "update", id: p.id, tags: ["new"] }))))
            ),
            Effect.zipRight(
              Effect.zipRight(Deferred.await(tag.holding), Effect.repeat(waiters, { until: (n) => n >= 1, schedule: Schedule.spaced("20 millis") })),
              counted(deletion)
            ),
            Effect.zipRight(
              Deferred.await(tag.holding),
              Effect.repeat(waiters, { until: (n) => n >= 2, schedule: Schedule.spaced("20 millis") })
            ).pipe(Effect.zipRight(Deferred.succeed(tag.go, undefined)))
          ], { concurrency: "unbounded" })
          expect(batch.map((r) => r.ok)).toEqual([true, true])
          // Neither was aborted to break a deadlock and run again.
          expect(yield* Ref.get(runs)).toBe(2)
          const after = yield* as(products.get(first.id, {}))
          expect(after.tags).toEqual(["new"])
        })))
    }
  })

  layer(catalogLayer({ storage: postgresStorage, webhooks: MemoryWebhookSender.layer(), blobs: GatedBlobs }), { timeout: 60_000 })("tenant deletion", (it) => {
    it.effect("queues a second deletion of a tenant on the first before it touches the organization's row", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const organizations = yield* Organizations
        const doomed = yield* newTenant
        const { written, go } = gateOf(doomed.organization.id)
        const remove = Effect.exit(Effect.provideService(organizations.delete(doomed.organization.id, doomed.organization.slug), CurrentTenant, doomed.tenant))
        const waiting = sql`select locktype from pg_locks l join pg_stat_activity a on a.pid = l.pid
                            where a.datname = current_database() and not l.granted`.pipe(
          Effect.map((rows) => rows.map((row) => (row as { locktype: string }).locktype))
        )
        const [first, second] = yield* Effect.all([
          remove,
          Effect.gen(function*() {
            // The first deletion holds the organization and waits at its export.
            yield* Deferred.await(written)
            const deletion = yield* Effect.fork(remove)
            yield* Effect.repeat(waiting, { until: (l) => l.length > 0, schedule: Schedule.spaced("20 millis") })
            const locks = yield* waiting
            // Queued on the row, it would be handed the organization ahead of the writes the first
            // deletion gives way to when Postgres aborts it to break a deadlock with one of them: the
            // two deletions were then aborted in turn until both had used up their runs.
            expect(locks).toEqual(["advisory"])
            yield* Deferred.succeed(go, undefined)
            return yield* Fiber.join(deletion)
          })
        ], { concurrency: "unbounded" })
        expect([outcomeOf(first), outcomeOf(second)].sort()).toEqual(["NotFound", "ok"])
      })))

    it.effect("exports what a write in flight committed, and holds back a write begun during the deletion", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const organizations = yield* Organizations
        const products = yield* Products
        const blobs = yield* BlobStore
        const doomed = yield* newTenant
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
        const family = yield* familyWith(doomed.tenant, "product", [])
        const lamp = yield* as(products.create({ familyId: family.id, name: "Lamp" }))
        const { written, go } = gateOf(doomed.organization.id)
        const waiting = sql`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
                            where a.datname = current_database() and l.locktype = 'advisory' and not l.granted`.pipe(
          Effect.map((rows) => Number((rows[0] as { n: number }).n) > 0)
        )
        const deletion = yield* Effect.fork(as(organizations.delete(doomed.organization.id, doomed.organization.slug)))
        // The deletion has read the tenant; an update of an existing row touches nothing it holds.
        yield* Deferred.await(written)
        const rename = yield* Effect.fork(Effect.exit(as(products.update(lamp.id, { name: "Renamed" }))))
        yield* Effect.repeat(waiting, { until: (some) => some, schedule: Schedule.spaced("20 millis") }).pipe(
          Effect.timeout("2 seconds"),
          Effect.ignore
        )
        yield* Deferred.succeed(go, undefined)
        const deleted = yield* Fiber.join(deletion)
        const renamed = yield* Fiber.join(rename)
        const bytes = yield* blobs.stream(deleted.exportKey)
        assert(Option.isSome(bytes))
        const text = new TextDecoder().decode(Chunk.toReadonlyArray(yield* Stream.runCollect(bytes.value)).reduce((a, b) => {
          const all = new Uint8Array(a.length + b.length)
          all.set(a)
          all.set(b, a.length)
          return all
        }, new Uint8Array()))
        const exported = (JSON.parse(text) as { tables: { products: ReadonlyArray<{ name: string }> } }).tables.products
        // An update that answered is in the export; here it could only start once the tenant was gone.
        expect(Exit.isSuccess(renamed) ? exported.map((p) => p.name) : "refused").toEqual("refused")
        expect(exported.map((p) => p.name)).toEqual(["Lamp"])
      })))
  })
})
