import { verify } from "@octokit/webhooks-methods"
import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Array as Arr, Cause, Deferred, Effect, Exit, Fiber, type Layer, Logger, LogLevel, Queue, Schema, TestClock, TestServices } from "effect"
import { IntColumn } from "../../adapters/sql/Columns.js"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import * as HttpWebhookSender from "../../adapters/webhooks/HttpWebhookSender.js"
import { ConnectorRepository } from "../../core/connectors/ConnectorRepository.js"
import { Connectors } from "../../core/connectors/Connectors.js"
import { AuditLog } from "../../core/events/AuditLog.js"
import type { NewEvent } from "../../core/events/Event.js"
import { emit, EventLog } from "../../core/events/EventLog.js"
import { Outbox, type QueuedDelivery } from "../../core/events/Outbox.js"
import { DEFAULT_SUBSCRIPTION } from "../../core/events/Subscription.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { runDispatcher } from "../../core/webhooks/Dispatcher.js"
import { WebhookSender } from "../../core/webhooks/WebhookSender.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { clientResponses } from "../support/ClientResponses.js"
import { type Receiver, startReceiver } from "../support/Receiver.js"
import { steppingClock } from "../support/SteppingClock.js"

const SECRET = "whsec-contract-0123456789"

type Tenant = CurrentTenant["Type"]

const asKey = (tenant: Tenant, keyId: string): Tenant => ({ ...tenant, actor: { type: "api_key", id: keyId }, role: null })

/** Records an event the way a write does: inside the tenant's transaction, as the tenant's actor. */
const write = (tenant: Tenant, event: NewEvent) =>
  Effect.gen(function*() {
    const uow = yield* UnitOfWork
    return yield* uow.tenant(tenant.organizationId, emit(event))
  }).pipe(Effect.provideService(CurrentTenant, tenant))

const inTenant = <A, E, R>(tenant: Tenant, effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, CurrentTenant, tenant)

/** Runs `effect` while a dispatcher delivers in the background; stops it afterwards. */
const dispatching = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.zipRight(Effect.forkScoped(runDispatcher({ pollInterval: "50 millis" })), effect))

const withReceiver = <A, E, R>(f: (receiver: Receiver) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(startReceiver), f, (r) => Effect.promise(r.close))

/** How many deliveries wait in the organization's connectors' queues. */
const queued = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const uow = yield* UnitOfWork
    const rows = yield* uow.system(
      sql`select CAST(count(*) AS INTEGER) as n from webhook_queue where organization_id = ${organizationId}`
    )
    return (yield* Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn })))(rows))[0]?.n ?? -1
  }).pipe(Effect.orDie)

/** Polls until `check` holds (real time); fails after ~10 s. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      if (yield* check) return
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.dieMessage("condition not reached in time")
  })

/** A destination the test hosts allow where nothing listens: a dispatcher's delivery fails at once. */
const NOWHERE = "http://127.0.0.1:9"

const install = (tenant: Tenant, url: string, events?: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
  Effect.flatMap(Connectors, (c) =>
    inTenant(
      tenant,
      c.install({
        type: "headless",
        name: "Storefront",
        config: { destination_url: url, secret: SECRET, ...(events !== undefined ? { events } : {}), extra_headers: extra }
      })
    ))

/** The audit log, connectors and the webhook outbox against one storage adapter. */
export const outboxSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage, HttpWebhookSender.layer({ allowedPrivateAddresses: ["127.0.0.1/32"] })), { timeout: 60_000 })(name, (it) => {
    it.effect("lists the audit log newest first, filtered and paged, and only the organization's own", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const other = yield* newTenant
        const audit = yield* AuditLog
        const crypto = yield* Crypto
        const productId = yield* crypto.uuid
        yield* TestClock.adjust("1 hour")
        yield* write(tenant, { name: "product.created", entityType: "product", entityId: productId, payload: { slug: "boots" } })
        yield* TestClock.adjust("1 hour")
        yield* write(tenant, { name: "product.updated", entityType: "product", entityId: productId, payload: { changed_fields: ["name"] } })
        yield* write(other.tenant, { name: "product.created", entityType: "product", entityId: productId })

        const all = yield* inTenant(tenant, audit.list({ limit: 50, offset: 0 }))
        expect(all.data.map((e) => e.name)).toEqual(["product.updated", "product.created", "organization.created"])
        expect(all.data.every((e) => e.id !== undefined)).toBe(true)
        const [latest] = all.data
        expect(latest).toMatchObject({
          name: "product.updated",
          entityType: "product",
          entityId: productId,
          action: "updated",
          actor: tenant.actor,
          payload: { changed_fields: ["name"] }
        })

        const byEntity = yield* inTenant(tenant, audit.list({ entityId: productId, entityType: "product", limit: 50, offset: 0 }))
        expect(byEntity.data.map((e) => e.name)).toEqual(["product.updated", "product.created"])
        const created = yield* inTenant(tenant, audit.list({ action: "created", limit: 50, offset: 0 }))
        expect(created.data.map((e) => e.name)).toEqual(["product.created", "organization.created"])
        expect((yield* inTenant(tenant, audit.list({ action: "dated", limit: 50, offset: 0 }))).data).toEqual([])

        const window = yield* inTenant(tenant, audit.list({ since: "1970-01-01T01:00:00.000Z", until: "1970-01-01T02:00:00.000Z", limit: 50, offset: 0 }))
        expect(window.data.map((e) => e.name)).toEqual(["product.created"])

        const first = yield* inTenant(tenant, audit.list({ limit: 2, offset: 0 }))
        expect(first).toMatchObject({ limit: 2, offset: 0, hasMore: true })
        const second = yield* inTenant(tenant, audit.list({ limit: 2, offset: 2 }))
        expect(second.data.map((e) => e.name)).toEqual(["organization.created"])
        expect(second.hasMore).toBe(false)

        const theirs = yield* inTenant(other.tenant, audit.list({ entityId: productId, limit: 50, offset: 0 }))
        expect(theirs.data).toHaveLength(1)
        expect(theirs.data[0]?.entityId).toBe(productId)
        expect(organization.id).not.toBe(other.organization.id)
      }))

    it.effect("names the API key that made a change", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const crypto = yield* Crypto
        const keyId = yield* crypto.uuid
        const productId = yield* crypto.uuid
        yield* write(asKey(tenant, keyId), { name: "product.created", entityType: "product", entityId: productId })
        const page = yield* inTenant(tenant, (yield* AuditLog).list({ entityId: productId, limit: 50, offset: 0 }))
        expect(page.data[0]).toMatchObject({ name: "product.created", action: "created", actor: { type: "api_key", id: keyId } })
      }))

    it.effect("installs, lists, updates and deletes connectors, never showing the secret", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const other = yield* newTenant
        const connectors = yield* Connectors
        const installed = yield* install(tenant, "http://127.0.0.1:9/hook", undefined, { "X-Shop": "one" })
        expect(installed).toMatchObject({
          organizationId: organization.id,
          type: "headless",
          name: "Storefront",
          config: { destination_url: "http://127.0.0.1:9/hook", events: DEFAULT_SUBSCRIPTION, extra_headers: { "X-Shop": "one" } }
        })
        expect(JSON.stringify(installed)).not.toContain(SECRET)
        expect(JSON.stringify(yield* inTenant(tenant, connectors.list))).not.toContain(SECRET)

        const updated = yield* inTenant(tenant, connectors.update(installed.id, { config: { events: ["brand.*"] } }))
        expect(updated.config.events).toEqual(["brand.*"])
        expect(updated.config.destination_url).toBe("http://127.0.0.1:9/hook")
        expect((yield* inTenant(tenant, connectors.get(installed.id))).config.events).toEqual(["brand.*"])

        const foreign = yield* Effect.exit(inTenant(other.tenant, connectors.get(installed.id)))
        assert(Exit.isFailure(foreign))
        expect(JSON.stringify(foreign.cause)).toContain("NotFound")
        expect(yield* inTenant(other.tenant, connectors.list)).toEqual([])

        yield* inTenant(tenant, connectors.remove(installed.id))
        const gone = yield* Effect.exit(inTenant(tenant, connectors.get(installed.id)))
        assert(Exit.isFailure(gone))
        const names = (yield* inTenant(tenant, (yield* AuditLog).list({ entityId: installed.id, limit: 50, offset: 0 }))).data.map((e) => e.name)
        expect(names).toEqual(["connector.deleted", "connector.updated", "connector.created"])
      }))

    it.effect("stamps connector.created with the instant the connector was installed", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const installed = yield* install(tenant, "http://127.0.0.1:9/hook").pipe(Effect.withClock(steppingClock()))
        const audit = yield* inTenant(tenant, (yield* AuditLog).list({ entityId: installed.id, limit: 50, offset: 0 }))
        expect(audit.data.map((e) => [e.name, e.createdAt])).toEqual([["connector.created", installed.createdAt]])
      }))

    it.effect("refuses a private destination at install", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        for (const url of ["http://10.0.0.1/hook", "http://127.0.0.2:8080/hook", "http://[::1]/hook", "http://localhost.:1/x".replace("localhost.", "[fd00::1]")]) {
          const refused = yield* Effect.exit(install(tenant, url))
          assert(Exit.isFailure(refused))
          expect(JSON.stringify(refused.cause)).toContain("destination_refused")
        }
      }))

    it.effect("keeps the 50 most recent deliveries per connector, newest first", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const repo = yield* ConnectorRepository
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const connector = yield* install(tenant, "http://127.0.0.1:9/hook")
        for (let i = 0; i < 55; i++) {
          yield* TestClock.adjust("1 second")
          const attemptedAt = new Date(yield* Effect.clockWith((c) => c.currentTimeMillis)).toISOString()
          yield* uow.tenant(
            organization.id,
            repo.recordDelivery(organization.id, connector.id, {
              id: yield* crypto.uuid,
              eventId: yield* crypto.uuid,
              eventName: `test.n${i}`,
              attemptedAt,
              durationMs: i,
              status: 200,
              ok: true,
              error: null
            }, 50)
          )
        }
        const page = yield* inTenant(tenant, (yield* Connectors).deliveries(connector.id, 50, 0))
        expect(page.data).toHaveLength(50)
        expect(page.hasMore).toBe(false)
        expect(page.data[0]?.eventName).toBe("test.n54")
        expect(page.data[49]?.eventName).toBe("test.n5")
      }))

    it.effect("keeps no more than 50 deliveries when attempts are recorded at the same time", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const repo = yield* ConnectorRepository
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const connector = yield* install(tenant, "http://127.0.0.1:9/hook")
        const attempt = (i: number) =>
          Effect.gen(function*() {
            return {
              id: yield* crypto.uuid,
              eventId: yield* crypto.uuid,
              eventName: `test.n${i}`,
              attemptedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
              durationMs: i,
              status: 200,
              ok: true,
              error: null
            }
          })
        const record = (i: number) =>
          Effect.flatMap(attempt(i), (a) => uow.tenant(organization.id, repo.recordDelivery(organization.id, connector.id, a, 50)))
        for (let i = 0; i < 50; i++) yield* record(i)
        // One recording holds its transaction open while another is made beside it.
        const recorded = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const held = yield* Effect.fork(Effect.flatMap(attempt(50), (a) =>
          uow.tenant(
            organization.id,
            repo.recordDelivery(organization.id, connector.id, a, 50).pipe(
              Effect.zipRight(Deferred.succeed(recorded, undefined)),
              Effect.zipRight(Deferred.await(release))
            )
          )
        ))
        yield* Deferred.await(recorded)
        const beside = yield* Effect.fork(record(51))
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(held)
        yield* Fiber.join(beside)
        const deliveries = yield* inTenant(tenant, (yield* Connectors).deliveries(connector.id, 50, 0))
        expect(deliveries.data).toHaveLength(50)
        expect(deliveries.hasMore).toBe(false)
        expect(deliveries.data.map((d) => d.eventName).slice(0, 2)).toEqual(["test.n51", "test.n50"])
        expect(deliveries.data[49]?.eventName).toBe("test.n2")
      })))

    it.effect("delivers a product event with the specified body, signed over the bytes sent, and logs it", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          const keyId = yield* crypto.uuid
          const connector = yield* install(tenant, receiver.url("/hook"), undefined, { "X-Shop": "one" })
          const productId = yield* crypto.uuid
          const test = yield* inTenant(tenant, (yield* Connectors).sendTest(connector.id))
          expect(test).toMatchObject({ eventName: "webhook.test", status: 200, ok: true, error: null })

          const event = yield* write(asKey(tenant, keyId), { name: "product.created", entityType: "product", entityId: productId, payload: { slug: "boots" } })
          const got = yield* dispatching(Effect.promise(() => receiver.waitFor((r) => r.headers["x-service-event"] === "product.created")))

          expect(got.method).toBe("POST")
          expect(got.headers["content-type"]).toBe("application/json")
          expect(got.headers["x-service-delivery"]).toBe(event.id)
          expect(got.headers["x-shop"]).toBe("one")
          expect(JSON.parse(got.text)).toEqual({
            name: "product.created",
            organization_id: organization.id,
            entity_id: productId,
            actor: { type: "api_key", id: keyId },
            timestamp: event.createdAt,
            payload: { slug: "boots" }
          })
          expect(Object.keys(JSON.parse(got.text))).toEqual(["name", "organization_id", "entity_id", "actor", "timestamp", "payload"])
          const signed = String(got.headers["x-service-signature-256"])
          expect(yield* Effect.promise(() => verify(SECRET, got.text, signed))).toBe(true)

          yield* eventually(Effect.map(inTenant(tenant, (yield* Connectors).deliveries(connector.id, 50, 0)), (p) => p.data.length === 2))
          const log = yield* inTenant(tenant, (yield* Connectors).deliveries(connector.id, 50, 0))
          expect(log.data.map((d) => [d.eventName, d.status, d.ok])).toEqual([["product.created", 200, true], ["webhook.test", 200, true]])
          expect(log.data[0]?.eventId).toBe(event.id)
          expect(receiver.received.filter((r) => r.headers["x-service-event"] === "product.created")).toHaveLength(1)
        }))))

    it.effect("delivers only what a connector subscribes to, in order, and empties its queue", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          yield* install(tenant, receiver.url("/products"), ["product.*"])
          yield* install(tenant, receiver.url("/exact"), ["product_modifier.updated"])
          const names = ["product.created", "product_modifier.updated", "product.updated", "api_key.created", "product_relationship.created", "product.deleted"]
          for (const name of names) yield* write(tenant, { name, entityType: name.split(".")[0] ?? "", entityId: yield* crypto.uuid })
          yield* dispatching(eventually(Effect.map(queued(organization.id), (n) => n === 0)))
          const at = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.headers["x-service-event"])
          expect(at("/products")).toEqual(["product.created", "product.updated", "product.deleted"])
          expect(at("/exact")).toEqual(["product_modifier.updated"])
        }))))

    it.effect("sends each event to the connectors subscribed when it was written that are still subscribed when it goes out", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          const connectors = yield* Connectors
          const paths = ["/slow", "/removed", "/unsubscribed"]
          for (const path of paths) receiver.answer(path, { delayMs: 1500 })
          yield* install(tenant, receiver.url("/slow"), ["product.created"])
          const removed = yield* install(tenant, receiver.url("/removed"), ["product.created"])
          const unsubscribed = yield* install(tenant, receiver.url("/unsubscribed"), ["product.created"])
          const created = Effect.flatMap(crypto.uuid, (entityId) => write(tenant, { name: "product.created", entityType: "product", entityId }))
          for (let i = 0; i < 3; i++) yield* created
          yield* dispatching(Effect.gen(function*() {
            // The first event is on its way to every connector, each receiver holding it a while.
            for (const path of paths) yield* Effect.promise(() => receiver.waitFor((r) => r.path === path))
            yield* inTenant(tenant, connectors.remove(removed.id))
            yield* inTenant(tenant, connectors.update(unsubscribed.id, { config: { events: ["brand.*"] } }))
            yield* install(tenant, receiver.url("/installed"), ["product.created"])
            yield* eventually(Effect.map(queued(organization.id), (n) => n === 0))
            const count = (path: string) => receiver.received.filter((r) => r.path === path).length
            // Written before it was installed, the three events never go to the new connector.
            expect([...paths, "/installed"].map(count)).toEqual([3, 1, 1, 0])
            yield* created
            yield* eventually(Effect.map(queued(organization.id), (n) => n === 0))
            expect([...paths, "/installed"].map(count)).toEqual([4, 1, 1, 1])
          }))
        }))), 30_000)

    it.effect("drops the deliveries queued for a connector deleted before they were claimed", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          const sql = yield* SqlClient.SqlClient
          const gone = yield* install(tenant, receiver.url("/gone"), ["brand.*"])
          for (let i = 0; i < 2; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          // As a write that read the connector before its deletion committed leaves its queue.
          yield* (yield* UnitOfWork).system(sql`delete from connectors where id = ${gone.id}`).pipe(Effect.orDie)
          expect(yield* queued(organization.id)).toBe(2)
          yield* dispatching(eventually(Effect.map(queued(organization.id), (n) => n === 0)))
          expect(receiver.received.filter((r) => r.path === "/gone")).toEqual([])
        }))))

    it.effect("holds off a connector whose receiver stops answering, leaving its deliveries queued", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          const connectors = yield* Connectors
          const dead = yield* install(tenant, `${NOWHERE}/dead`, ["brand.*"])
          yield* install(tenant, receiver.url("/alive"), ["brand.*"])
          for (let i = 0; i < 6; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const attempts = Effect.map(inTenant(tenant, connectors.deliveries(dead.id, 50, 0)), (page) => page.data.length)
          const alive = () => receiver.received.filter((r) => r.path === "/alive").length
          yield* Effect.scoped(Effect.gen(function*() {
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "50 millis", holdOff: "1 hour" }))
            yield* eventually(Effect.map(attempts, (n) => n === 3 && alive() === 6))
            // Several claims later, the three unanswered in a row still hold it off.
            yield* Effect.sleep("500 millis")
            expect(yield* attempts).toBe(3)
          }))
          expect(yield* queued(organization.id)).toBe(3)
          // Another dispatcher, which has seen no failure, sends the rest.
          yield* dispatching(eventually(Effect.map(queued(organization.id), (n) => n === 0)))
          expect(yield* attempts).toBe(6)
          expect(alive()).toBe(6)
        }))))

    it.effect("holds off a connector whose receiver sends a status and then stalls, as one that never answers", () =>
      Effect.gen(function*() {
        // The sender's timeout runs on this clock: an attempt runs out only once its status is in.
        const clock = yield* TestClock.testClock()
        yield* TestServices.provideLive(withReceiver((receiver) =>
          Effect.gen(function*() {
            const { organization, tenant } = yield* newTenant
            const crypto = yield* Crypto
            const connectors = yield* Connectors
            receiver.answer("/stalled", { stall: true })
            const stalled = yield* install(tenant, receiver.url("/stalled"), ["brand.*"])
            for (let i = 0; i < 5; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
            const log = Effect.map(inTenant(tenant, connectors.deliveries(stalled.id, 50, 0)), (page) => page.data)
            const http = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"], timeoutMs: 60_000 })
            const sender = WebhookSender.of({ ...http, send: (request) => Effect.withClock(http.send(request), clock) })
            yield* Effect.scoped(Effect.gen(function*() {
              const statuses = yield* clientResponses(receiver.port, "/stalled")
              yield* Effect.forkScoped(
                runDispatcher({ pollInterval: "50 millis", holdOff: "1 hour" }).pipe(Effect.provideService(WebhookSender, sender))
              )
              // A dispatcher stops only once its attempt ends: one still waiting fails the test, not hangs it.
              yield* Effect.addFinalizer(() => clock.adjust("1 hour"))
              for (const sent of [1, 2, 3]) {
                expect(yield* Queue.take(statuses)).toBe(200)
                yield* clock.adjust("1 minute")
                yield* eventually(Effect.map(log, (attempts) => attempts.length === sent))
              }
              // Several claims later, the three unanswered in a row still hold it off.
              yield* Effect.sleep("500 millis")
              expect(receiver.received.filter((r) => r.path === "/stalled").length).toBe(3)
              const attempts = yield* log
              expect(attempts.map((a) => [a.status, a.ok, a.error])).toEqual([0, 1, 2].map(() => [200, false, "timed out after 60000 ms"]))
            }))
            expect(yield* queued(organization.id)).toBe(2)
          })))
      }))

    it.effect("gives back a connector held off while a claim that had not seen it yet was under way, sending it nothing more", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const crypto = yield* Crypto
        const uow = yield* UnitOfWork
        const sql = yield* SqlClient.SqlClient
        const held = yield* install(tenant, `${NOWHERE}/held`, ["brand.*"])
        for (let i = 0; i < 5; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
        // What earlier cases left queued would take the gate below in this connector's place.
        yield* uow.system(sql`delete from webhook_queue where connector_id <> ${held.id}`).pipe(Effect.orDie)
        const claimed = Effect.flatMap(
          uow.system(sql`select CAST(count(*) AS INTEGER) as n from webhook_queue where connector_id = ${held.id} and claimed_by is not null`),
          Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn })))
        ).pipe(Effect.map((rows) => rows[0]?.n), Effect.orDie)
        const atGate = yield* Deferred.make<void>()
        const claimDone = yield* Deferred.make<void>()
        let sends = 0
        let armed = false
        const sender = WebhookSender.of({
          checkDestination: () => Effect.void,
          send: () =>
            Effect.suspend(() => {
              const unanswered = { status: null, error: "connection refused" }
              if (++sends !== 3) return Effect.succeed(unanswered)
              // The third, the one that holds the connector off, ends only once a claim waits at the gate.
              armed = true
              return Effect.as(Deferred.await(atGate), unanswered)
            })
        })
        // The claim made while the third is out goes on only once the hold-off has given the rest back.
        const gated = UnitOfWork.of({
          ...uow,
          system: (effect) =>
            Effect.suspend(() => {
              if (!armed) return uow.system(effect)
              armed = false
              return Deferred.succeed(atGate, undefined).pipe(
                Effect.zipRight(eventually(Effect.map(claimed, (n) => n === 0))),
                Effect.zipRight(uow.system(effect)),
                Effect.ensuring(Deferred.succeed(claimDone, undefined))
              )
            })
        })
        yield* Effect.scoped(Effect.gen(function*() {
          yield* Effect.forkScoped(
            runDispatcher({ pollInterval: "50 millis", holdOff: "1 hour", lease: "1 hour" }).pipe(
              Effect.provideService(WebhookSender, sender),
              Effect.provideService(UnitOfWork, gated)
            )
          )
          yield* Deferred.await(claimDone)
          yield* eventually(Effect.map(claimed, (n) => n === 0))
        }))
        expect(sends).toBe(3)
        expect(yield* queued(organization.id)).toBe(2)
      })))

    it.effect("serves a connector for one slice at a time, so that a slow receiver takes turns with the others on a busy dispatcher", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const crypto = yield* Crypto
          const slow = yield* newTenant
          const other = yield* newTenant
          receiver.answer("/slow", { delayMs: 300 })
          yield* install(slow.tenant, receiver.url("/slow"), ["brand.*"])
          yield* install(other.tenant, receiver.url("/other"), ["brand.*"])
          for (let i = 0; i < 5; i++) yield* write(slow.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const count = (path: string) => receiver.received.filter((r) => r.path === path).length
          const slowSentFirst = yield* Effect.scoped(Effect.gen(function*() {
            // One fiber: the other connector goes out only when the slow one gives its turn up.
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "50 millis", concurrency: 1, slice: "200 millis" }))
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/slow"))
            yield* write(other.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/other"))
            const sent = count("/slow")
            yield* eventually(Effect.map(queued(slow.organization.id), (n) => n === 0))
            return sent
          }))
          expect(slowSentFirst).toBeLessThan(5)
          expect(count("/slow")).toBe(5)
        }))), 30_000)

    it.effect("passes a connector whose slice ran out over in the process that served it only: another claims it at once", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          receiver.answer("/sliced", { delayMs: 300 })
          yield* install(tenant, receiver.url("/sliced"), ["brand.*"])
          for (let i = 0; i < 4; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          let sentBySecond = 0
          const counted = Effect.map(WebhookSender, (sender) =>
            WebhookSender.of({ ...sender, send: (request) => Effect.zipRight(Effect.sync(() => sentBySecond++), sender.send(request)) }))
          yield* Effect.scoped(Effect.gen(function*() {
            // The first looks for work again only when its own fiber finishes: then it passes the connector over.
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "1 hour", slice: "100 millis" }))
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/sliced"))
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "50 millis" }).pipe(Effect.provideServiceEffect(WebhookSender, counted)))
            yield* eventually(Effect.map(queued(organization.id), (n) => n === 0))
          }))
          expect(sentBySecond).toBe(3)
        }))), 30_000)

    it.effect("lets a slow receiver hold up no other connector of its organization", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          receiver.answer("/slow", { delayMs: 2000 })
          yield* install(tenant, receiver.url("/slow"), ["brand.*"])
          yield* install(tenant, receiver.url("/fast"), ["brand.*"])
          for (let i = 0; i < 3; i++) yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const count = (path: string) => receiver.received.filter((r) => r.path === path).length
          const slowWhenFastDone = yield* dispatching(Effect.gen(function*() {
            yield* eventually(Effect.sync(() => count("/fast") === 3))
            return count("/slow")
          }))
          expect(slowWhenFastDone).toBeLessThan(3)
          expect(yield* queued(organization.id)).toBeGreaterThan(0)
        }))), 30_000)

    it.effect("lets a slow receiver hold up only its own organization's deliveries", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const crypto = yield* Crypto
          const slow = yield* newTenant
          const fast = yield* newTenant
          receiver.answer("/slow", { delayMs: 1500 })
          yield* install(slow.tenant, receiver.url("/slow"), ["brand.*"])
          yield* install(fast.tenant, receiver.url("/fast"), ["brand.*"])
          for (let i = 0; i < 3; i++) yield* write(slow.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const pendingOfSlow = yield* dispatching(Effect.gen(function*() {
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/slow"))
            yield* write(fast.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/fast"))
            return yield* queued(slow.organization.id)
          }))
          // The other organization's event went out while the slow one's were still queued.
          expect(pendingOfSlow).toBeGreaterThan(0)
        }))))

    it.effect("logs failed deliveries with their status or error and does not retry them", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          receiver.answer("/failing", { status: 500 })
          receiver.answer("/moved", { status: 301, headers: { location: receiver.url("/elsewhere") } })
          const failing = yield* install(tenant, receiver.url("/failing"), ["brand.*"])
          const moved = yield* install(tenant, receiver.url("/moved"), ["brand.*"])
          yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          yield* dispatching(
            Effect.zipRight(
              eventually(Effect.map(queued(organization.id), (n) => n === 0)),
              Effect.sleep("300 millis")
            )
          )
          const connectors = yield* Connectors
          const [failed] = (yield* inTenant(tenant, connectors.deliveries(failing.id, 50, 0))).data
          expect(failed).toMatchObject({ eventName: "brand.created", status: 500, ok: false })
          expect(failed?.error).toContain("500")
          const [redirected] = (yield* inTenant(tenant, connectors.deliveries(moved.id, 50, 0))).data
          expect(redirected).toMatchObject({ status: 301, ok: false })
          expect(receiver.received.filter((r) => r.path === "/failing")).toHaveLength(1)
          expect(receiver.received.some((r) => r.path === "/elsewhere")).toBe(false)
        }))))

    it.effect("sends an event again, with the same delivery id, when its attempt could not be recorded", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const crypto = yield* Crypto
          yield* install(tenant, receiver.url("/unrecorded"), ["brand.*"])
          const event = yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          let failures = 1
          const failingOnce = Effect.map(ConnectorRepository, (repo) =>
            ConnectorRepository.of({
              ...repo,
              recordDelivery: (...args) =>
                failures-- > 0 ? Effect.dieMessage("the delivery log cannot be written") : repo.recordDelivery(...args)
            }))
          yield* dispatching(eventually(Effect.map(queued(organization.id), (n) => n === 0))).pipe(
            Effect.provideServiceEffect(ConnectorRepository, failingOnce),
            Logger.withMinimumLogLevel(LogLevel.None)
          )
          const sent = receiver.received.filter((r) => r.path === "/unrecorded").map((r) => r.headers["x-service-delivery"])
          expect(sent).toEqual([event.id, event.id])
        }))))

    it.effect("waits longer after each failed claim while the outbox cannot be claimed, logs the outage in full once, and delivers once it is back", () =>
      withReceiver((receiver) =>
        Effect.gen(function*() {
          const { tenant } = yield* newTenant
          const crypto = yield* Crypto
          const sql = yield* SqlClient.SqlClient
          yield* install(tenant, receiver.url("/hook"), ["brand.*"])
          yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const logs: Array<{ readonly level: LogLevel.LogLevel; readonly text: string; readonly cause: Cause.Cause<unknown> }> = []
          const capture = Logger.make(({ cause, logLevel, message }) => {
            logs.push({ level: logLevel, text: Arr.ensure(message).map(String).join(" "), cause })
          })
          const claimFailures = () => logs.filter((l) => l.text.startsWith("claiming webhook events failed"))
          // Lets the dispatcher's database work, which runs in real time, finish after each tick.
          const tick = Effect.zipRight(TestClock.adjust("1 second"), TestServices.provideLive(Effect.sleep("20 millis")))

          // The database refuses every claim, as it does while it is down or read-only.
          yield* sql.onDialectOrElse({
            pg: () =>
              Effect.zipRight(
                sql.unsafe(`CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'claims refused'; END $$`),
                sql.unsafe(`CREATE TRIGGER refuse_claims BEFORE UPDATE ON webhook_queue FOR EACH ROW EXECUTE FUNCTION refuse_claims()`)
              ),
            orElse: () => sql.unsafe(`CREATE TRIGGER refuse_claims BEFORE UPDATE ON webhook_queue BEGIN SELECT RAISE(ABORT, 'claims refused'); END`)
          }).pipe(Effect.orDie)
          yield* Effect.forkScoped(runDispatcher({ pollInterval: "1 second", maxRetryWait: "8 seconds" })).pipe(
            Effect.provide(Logger.replace(Logger.defaultLogger, capture))
          )
          for (let i = 0; i < 60; i++) yield* tick

          const failures = claimFailures()
          // Attempts at 0, 1, 3, 7, 15, 23, ... s instead of one a second.
          expect(failures.length).toBeGreaterThanOrEqual(5)
          expect(failures.length).toBeLessThanOrEqual(10)
          expect(failures[0]?.level).toBe(LogLevel.Error)
          expect(Cause.isEmpty(failures[0]?.cause ?? Cause.empty)).toBe(false)
          for (const later of failures.slice(1)) {
            expect(later.level).toBe(LogLevel.Warning)
            expect(Cause.isEmpty(later.cause)).toBe(true)
            expect(later.text).toContain("claims refused")
            expect(later.text).not.toContain("\n")
          }
          expect(failures.slice(1, 5).map((l) => l.text.replace(/.*next attempt in /, ""))).toEqual(["2s", "4s", "8s", "8s"])
          expect(receiver.received.filter((r) => r.path === "/hook")).toEqual([])

          yield* sql.onDialectOrElse({
            pg: () => Effect.zipRight(sql.unsafe(`DROP TRIGGER refuse_claims ON webhook_queue`), sql.unsafe(`DROP FUNCTION refuse_claims()`)),
            orElse: () => sql.unsafe(`DROP TRIGGER refuse_claims`)
          }).pipe(Effect.orDie)
          for (let i = 0; i < 20 && !receiver.received.some((r) => r.path === "/hook"); i++) yield* tick
          expect(receiver.received.filter((r) => r.path === "/hook").map((r) => r.headers["x-service-event"])).toEqual(["brand.created"])
          expect(logs.filter((l) => l.text.startsWith("claiming webhook events works again")).map((l) => l.level)).toEqual([LogLevel.Info])
        }).pipe(Effect.scoped)))

    it.effect("deleting an organization leaves no connectors, deliveries or queued deliveries, and queues its tombstone for no one", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const { organization, tenant } = yield* newTenant
          const connectors = yield* Connectors
          const connector = yield* install(tenant, receiver.url("/doomed"))
          yield* inTenant(tenant, connectors.sendTest(connector.id))
          const deleted = yield* inTenant(tenant, (yield* Organizations).delete(organization.id, organization.slug))
          expect(deleted.deletedCounts.connectors).toBe(1)
          expect(deleted.deletedCounts.connectorDeliveries).toBe(1)
          const sql = yield* SqlClient.SqlClient
          const left = yield* (yield* UnitOfWork).system(
            sql`select (select CAST(count(*) AS INTEGER) from connectors where organization_id = ${organization.id})
                     + (select CAST(count(*) AS INTEGER) from connector_deliveries where organization_id = ${organization.id}) as n`
          ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn })))), Effect.orDie)
          expect(left[0]?.n).toBe(0)
          yield* dispatching(eventually(Effect.map(queued(organization.id), (n) => n === 0)))
          expect(receiver.received.filter((r) => r.path === "/doomed").map((r) => r.headers["x-service-event"])).toEqual(["webhook.test"])
        }))))

    it.effect("queues only the events a connector subscribes to when they are written", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const crypto = yield* Crypto
        const brand = () => Effect.flatMap(crypto.uuid, (entityId) => write(tenant, { name: "brand.created", entityType: "brand", entityId }))
        yield* brand()
        expect(yield* queued(organization.id)).toBe(0)
        yield* install(tenant, `${NOWHERE}/brands`, ["brand.*"])
        yield* brand()
        yield* write(tenant, { name: "product.created", entityType: "product", entityId: yield* crypto.uuid })
        expect(yield* queued(organization.id)).toBe(1)
      }))

    it.effect("stops when its scope closes, holding no claims", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const crypto = yield* Crypto
        yield* install(tenant, `${NOWHERE}/brands`, ["brand.*"])
        yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
        const fiber = yield* Effect.scoped(Effect.gen(function*() {
          const running = yield* Effect.forkScoped(runDispatcher({ pollInterval: "20 millis" }))
          yield* eventually(Effect.map(queued(organization.id), (n) => n === 0))
          return running
        }))
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        const sql = yield* SqlClient.SqlClient
        const held = yield* (yield* UnitOfWork).system(sql`select seq from webhook_queue where claimed_by is not null`).pipe(Effect.orDie)
        expect(held).toEqual([])
      })))

    it.effect("hands a dead dispatcher's claims to another once they run out, never a live one's", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const outbox = yield* Outbox
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const connector = yield* install(tenant, `${NOWHERE}/brands`, ["brand.*"])
        yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
        // TestClock: far in the future, so earlier tests' events are claimable too; keep only ours.
        yield* TestClock.adjust("3650 days")
        const now = new Date(yield* Effect.clockWith((c) => c.currentTimeMillis))
        const iso = (plusSeconds: number) => new Date(now.getTime() + plusSeconds * 1000).toISOString()
        const ours = (deliveries: ReadonlyArray<QueuedDelivery>) =>
          deliveries.filter((d) => d.connectorId === connector.id).map((d) => d.event.name)

        const byA = yield* uow.system(outbox.claim("dispatcher-a", iso(0), iso(30), 1000))
        expect(ours(byA)).toEqual(["brand.created"])
        expect(ours(yield* uow.system(outbox.claim("dispatcher-b", iso(10), iso(40), 1000)))).toEqual([])
        // A wrote this event while its claim was live: the connector stays A's.
        yield* write(tenant, { name: "brand.updated", entityType: "brand", entityId: yield* crypto.uuid })
        expect(ours(yield* uow.system(outbox.claim("dispatcher-b", iso(20), iso(50), 1000)))).toEqual([])
        // A's heartbeat at +25 s keeps its claims to +55 s.
        yield* uow.system(outbox.renew("dispatcher-a", iso(55)))
        expect(ours(yield* uow.system(outbox.claim("dispatcher-b", iso(31), iso(61), 1000)))).toEqual([])
        // Then A died; its lease ran out at +55 s.
        const byB = yield* uow.system(outbox.claim("dispatcher-b", iso(56), iso(86), 1000))
        expect(ours(byB)).toEqual(["brand.created", "brand.updated"])
        const first = byB.find((d) => d.connectorId === connector.id)
        assert(first !== undefined)
        expect(yield* uow.system(outbox.complete("dispatcher-a", [first.id]))).toBe(false)
        expect(yield* uow.system(outbox.complete("dispatcher-b", [first.id]))).toBe(true)
        yield* uow.system(outbox.release("dispatcher-b"))
        yield* uow.system(outbox.release("dispatcher-a"))
        expect(yield* queued(organization.id)).toBe(1)
      }).pipe(Effect.provideServiceEffect(EventLog, EventLog)))

    it.effect("gives back one connector's claims, leaving the holder's others", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const outbox = yield* Outbox
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const first = yield* install(tenant, `${NOWHERE}/first`, ["brand.*"])
        const second = yield* install(tenant, `${NOWHERE}/second`, ["brand.*"])
        yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
        yield* TestClock.adjust("3650 days")
        const now = new Date(yield* Effect.clockWith((c) => c.currentTimeMillis))
        const iso = (plusSeconds: number) => new Date(now.getTime() + plusSeconds * 1000).toISOString()
        const ours = (deliveries: ReadonlyArray<QueuedDelivery>) =>
          [first.id, second.id].filter((id) => deliveries.some((d) => d.connectorId === id))

        const byA = yield* uow.system(outbox.claim("dispatcher-a", iso(0), iso(30), 1000))
        expect(ours(byA)).toEqual([first.id, second.id].sort())
        yield* uow.system(outbox.giveBack("dispatcher-a", first.id))
        expect(ours(yield* uow.system(outbox.claim("dispatcher-b", iso(1), iso(31), 1000)))).toEqual([first.id])
        yield* uow.system(outbox.release("dispatcher-a"))
        yield* uow.system(outbox.release("dispatcher-b"))
      }).pipe(Effect.provideServiceEffect(EventLog, EventLog)))

    it.effect("claims no more connectors than asked, those waiting longest, leaving the others to another dispatcher", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const outbox = yield* Outbox
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const at = (seconds: number) => new Date(Date.UTC(2100, 0, 2) + seconds * 1000).toISOString()
        // Whatever earlier tests left undelivered is held by a sweeper, so only our events are free.
        yield* uow.system(outbox.claim("sweeper", at(0), at(3600), 1_000_000))
        // Installed first, written to last: its id sorts first, its delivery is the newest.
        const newest = yield* install(tenant, `${NOWHERE}/newest`, ["category.*"])
        const oldest = yield* install(tenant, `${NOWHERE}/oldest`, ["brand.*"])
        yield* write(tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
        yield* write(tenant, { name: "category.created", entityType: "category", entityId: yield* crypto.uuid })
        const connectorsOf = (deliveries: ReadonlyArray<QueuedDelivery>) => deliveries.map((d) => d.connectorId)

        expect(connectorsOf(yield* uow.system(outbox.claim("dispatcher-a", at(1), at(31), 50, [], 1)))).toEqual([oldest.id])
        expect(connectorsOf(yield* uow.system(outbox.claim("dispatcher-b", at(2), at(32), 50, [], 1)))).toEqual([newest.id])
        for (const holder of ["sweeper", "dispatcher-a", "dispatcher-b"]) yield* uow.system(outbox.release(holder))
      }).pipe(Effect.provideServiceEffect(EventLog, EventLog)))

    it.effect("leaves the connectors it has no fiber for to another dispatcher", () =>
      TestServices.provideLive(withReceiver((receiver) =>
        Effect.gen(function*() {
          const crypto = yield* Crypto
          const slow = yield* newTenant
          const other = yield* newTenant
          receiver.answer("/busy", { delayMs: 3000 })
          const busy = yield* install(slow.tenant, receiver.url("/busy"), ["brand.*"])
          yield* install(other.tenant, receiver.url("/waiting"), ["brand.*"])
          yield* write(slow.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          yield* write(other.tenant, { name: "brand.created", entityType: "brand", entityId: yield* crypto.uuid })
          const busyLog = yield* Effect.scoped(Effect.gen(function*() {
            // One fiber each. The first serves the busy connector; the waiting one must not be
            // held, unserved, by it while the second has a fiber free.
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "50 millis", concurrency: 1 }))
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/busy"))
            yield* Effect.forkScoped(runDispatcher({ pollInterval: "50 millis", concurrency: 1 }))
            yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/waiting"))
            return yield* inTenant(slow.tenant, (yield* Connectors).deliveries(busy.id, 50, 0))
          }))
          // The waiting connector's event went out while the busy one's attempt was unanswered.
          expect(busyLog.data).toEqual([])
        }))), 30_000)

    it.effect("claims a large backlog oldest first, one connector per dispatcher, with takeover", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        const uow = yield* UnitOfWork
        const crypto = yield* Crypto
        const at = (seconds: number) => new Date(Date.UTC(2100, 0, 1) + seconds * 1000).toISOString()
        // Whatever earlier tests left undelivered is held by a sweeper, so only our events are free.
        yield* uow.system(outbox.claim("sweeper", at(0), at(3600), 1_000_000))
        const big = yield* newTenant
        const bigConnector = yield* install(big.tenant, `${NOWHERE}/big`, ["product.*"])
        const emitFor = (tenant: Tenant) =>
          Effect.flatMap(crypto.uuid, (entityId) => write(tenant, { name: "product.updated", entityType: "product", entityId }))
        const bigIds: Array<string> = []
        const smallIds: Array<string> = []
        for (let i = 0; i < 60; i++) bigIds.push((yield* emitFor(big.tenant)).id)
        const small = yield* newTenant
        const smallConnector = yield* install(small.tenant, `${NOWHERE}/small`, ["product.*"])
        for (let i = 0; i < 3; i++) smallIds.push((yield* emitFor(small.tenant)).id)
        for (let i = 0; i < 240; i++) bigIds.push((yield* emitFor(big.tenant)).id)
        // The queue's ids of the claimed deliveries, by their events' ids.
        const queueIds = new Map<string, number>()
        const claim = (holder: string, now: number, limit: number) =>
          Effect.map(
            uow.system(outbox.claim(holder, at(now), at(now + 30), limit)),
            (deliveries) =>
              deliveries.filter((d) => d.connectorId === bigConnector.id || d.connectorId === smallConnector.id).map((d) => {
                queueIds.set(d.event.id, d.id)
                return d.event.id
              })
          )
        const complete = (holder: string, eventIds: ReadonlyArray<string>) =>
          uow.system(outbox.complete(holder, eventIds.map((id) => queueIds.get(id) ?? -1)))

        const byA = yield* claim("dispatcher-a", 1, 50)
        expect(byA).toEqual(bigIds.slice(0, 50))
        // The big connector is A's: B gets only the small one, all of it.
        const byB = yield* claim("dispatcher-b", 2, 50)
        expect(byB).toEqual(smallIds)
        expect(yield* claim("dispatcher-a", 3, 50)).toEqual([])
        expect(yield* claim("dispatcher-c", 3, 50)).toEqual([])

        expect(yield* complete("dispatcher-a", byA)).toBe(true)
        // Free again, the big connector goes on where A stopped.
        const byB2 = yield* claim("dispatcher-b", 4, 50)
        expect(byB2).toEqual(bigIds.slice(50, 100))
        // B died: both connectors are taken over at once, the oldest events first.
        const byC = yield* claim("dispatcher-c", 40, 60)
        expect(byC).toEqual([...bigIds.slice(50, 60), ...smallIds, ...bigIds.slice(60, 107)])
        expect(yield* complete("dispatcher-b", [bigIds[50] ?? ""])).toBe(false)
        for (const holder of ["sweeper", "dispatcher-a", "dispatcher-b", "dispatcher-c"]) yield* uow.system(outbox.release(holder))
        expect(yield* queued(big.organization.id)).toBe(300 - 50)
      }))
  })
