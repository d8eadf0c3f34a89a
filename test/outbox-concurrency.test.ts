import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import * as HttpWebhookSender from "../adapters/webhooks/HttpWebhookSender.js"
import { Connectors } from "../core/connectors/Connectors.js"
import { emit } from "../core/events/EventLog.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { runDispatcher } from "../core/webhooks/Dispatcher.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"
import { startReceiver } from "./support/Receiver.js"

const available = await postgresAvailable()
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))

const IN_ORDER = 30
const AT_ONCE = 20

/** Two catalogs on one database, each with its own pool and dispatcher: two host processes. */
describe.runIf(available)("postgres: two dispatchers on one database", () => {
  it.live("deliver each event exactly once, in write order for writes made one after another", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const sender = HttpWebhookSender.layer({ allowedPrivateAddresses: ["127.0.0.1/32"] })
      const a = yield* Layer.build(catalogOver(PostgresStorage.layer(url, 5), sender))
      const b = yield* Layer.build(catalogOver(PostgresStorage.layer(url, 5), sender))

      const tenants = yield* Effect.provide(Effect.all([newTenant, newTenant, newTenant]), a)
      for (const [i, { tenant }] of tenants.entries()) {
        yield* Effect.provide(
          Effect.flatMap(Connectors, (c) =>
            c.install({ type: "headless", name: `c${i}`, config: { destination_url: receiver.url(`/t${i}`), secret: "whsec-two-dispatchers", events: ["product.*"] } })),
          a
        ).pipe(Effect.provideService(CurrentTenant, tenant))
      }

      yield* Effect.forkScoped(Effect.provide(runDispatcher({ pollInterval: "20 millis", batchSize: 7 }), a))
      yield* Effect.forkScoped(Effect.provide(runDispatcher({ pollInterval: "20 millis", batchSize: 7 }), b))

      // Writes arrive through both "processes" at once, while both dispatchers run. Each
      // organization first writes one event after another (alternating processes), then many at
      // once. Events of writes made one after another keep their order; writes made at the same
      // time on Postgres take their numbers and commit in either order, so only once is asserted.
      const write = (tenant: CurrentTenant["Type"], name: string, n: number) =>
        Effect.flatMap(UnitOfWork, (uow) =>
          uow.tenant(tenant.organizationId, emit({ name, entityType: "product", entityId: tenant.organizationId, payload: { n } }))
        ).pipe(Effect.provideService(CurrentTenant, tenant), Effect.provide(n % 2 === 0 ? a : b))
      yield* Effect.forEach(
        tenants,
        ({ tenant }) =>
          Effect.zipRight(
            Effect.forEach(Array.from({ length: IN_ORDER }, (_, n) => n), (n) => write(tenant, "product.updated", n), { discard: true }),
            Effect.forEach(Array.from({ length: AT_ONCE }, (_, n) => n), (n) => write(tenant, "product.created", n), { concurrency: 4, discard: true })
          ),
        { concurrency: "unbounded", discard: true }
      )

      const expected = tenants.length * (IN_ORDER + AT_ONCE)
      yield* Effect.promise(() => receiver.waitFor(() => receiver.received.length >= expected, 20_000))
      // Give a duplicate, if there were one, the time to arrive.
      yield* Effect.sleep("500 millis")
      expect(receiver.received).toHaveLength(expected)
      const ids = receiver.received.map((r) => String(r.headers["x-service-delivery"]))
      expect(new Set(ids).size).toBe(expected)

      const sql = yield* Effect.provide(SqlClient.SqlClient, a)
      for (const [i, { organization }] of tenants.entries()) {
        const written = (name: string) =>
          Effect.provide(
            Effect.flatMap(UnitOfWork, (uow) =>
              uow.system(sql`select id from events where organization_id = ${organization.id} and name = ${name} order by seq`)
            ),
            a
          ).pipe(Effect.flatMap(decodeIds), Effect.map((rows) => rows.map((r) => r.id)))
        const delivered = (name: string) =>
          receiver.received.filter((r) => r.path === `/t${i}` && r.headers["x-service-event"] === name).map((r) => String(r.headers["x-service-delivery"]))
        expect(delivered("product.updated")).toEqual(yield* written("product.updated"))
        expect(delivered("product.created").sort()).toEqual([...(yield* written("product.created"))].sort())
      }
    }).pipe(Effect.scoped), 60_000)
})
