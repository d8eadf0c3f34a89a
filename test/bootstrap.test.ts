import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Layer, Option } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { ApiKeyRepository } from "../core/tenancy/ApiKeyRepository.js"
import { BootstrapKeyElsewhere, ensureSingleTenant } from "../core/tenancy/Bootstrap.js"
import { AmbiguousBootstrapOrganization, ApiKeys, catalogLayer, MemoryWebhookSender, Organizations, PostgresStorage, SqliteStorage, type Storage } from "../index.js"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"

const withPostgres = await postgresAvailable()

const firstStart = { slug: "default", apiKey: Option.none<string>(), adminEmail: Option.none<string>() }

const singleTenant = <E>(storage: Layer.Layer<Storage, E>) =>
  catalogLayer({ storage, webhooks: MemoryWebhookSender.layer(), tenancy: "single" })

/**
 * The storage of a process that, once it has looked at the organization's keys, signals `looked`
 * and lets another process start before it goes on: it waits for `otherStarted` for a second
 * where it looked (the other may have to wait for its transaction), and for as long as it takes
 * before any transaction it begins after that.
 */
const lettingAnotherStartAfterTheLook = <E>(
  storage: Layer.Layer<Storage, E>,
  looked: Deferred.Deferred<void>,
  otherStarted: Deferred.Deferred<void>
) =>
  Layer.map(storage, (context) => {
    const keys = Context.get(context, ApiKeyRepository)
    const uow = Context.get(context, UnitOfWork)
    const outsideAnyTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isNone)
    const holdWhereLooked = Effect.timeoutOption(Deferred.await(otherStarted), "1 second")
    const waitAfterTheLook = Effect.whenEffect(
      Deferred.await(otherStarted),
      Effect.zipWith(Deferred.isDone(looked), outsideAnyTransaction, (done, outside) => done && outside)
    )
    return context.pipe(
      Context.add(ApiKeyRepository, { ...keys, list: (id) => Effect.tap(keys.list(id), () => Effect.zipRight(Deferred.succeed(looked, undefined), holdWhereLooked)) }),
      Context.add(UnitOfWork, { ...uow, tenant: (id, effect) => Effect.zipRight(waitAfterTheLook, uow.tenant(id, effect)) })
    )
  })

/** Two processes start on one new database, the second once the first has looked for a key: how many keys they print. */
const startTogether = <E>(storage: () => Layer.Layer<Storage, E>) =>
  Effect.gen(function*() {
    const firstLooked = yield* Deferred.make<void>()
    const secondStarted = yield* Deferred.make<void>()
    const first = yield* Layer.build(singleTenant(lettingAnotherStartAfterTheLook(storage(), firstLooked, secondStarted)))
    const second = yield* Layer.build(singleTenant(storage()))
    const [one, two] = yield* Effect.all([
      Effect.provide(ensureSingleTenant(firstStart), first),
      Deferred.await(firstLooked).pipe(
        Effect.zipRight(Effect.provide(ensureSingleTenant(firstStart), second)),
        Effect.tap(() => Deferred.succeed(secondStarted, undefined))
      )
    ], { concurrency: "unbounded" })
    expect(two.organization).toEqual(one.organization)
    return [one.minted, two.minted].filter(Option.isSome).length
  })

const printsOneKey = (printed: Effect.Effect<number, unknown>) => Effect.map(printed, (n) => expect(n).toBe(1))

describe("two processes starting at once on a new single-tenant database", () => {
  it.live("print one bootstrap key between them (SQLite file)", () =>
    printsOneKey(Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "catalog-bootstrap-"))),
      (dir) => Effect.scoped(startTogether(() => SqliteStorage.layer(join(dir, "catalog.db")))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )))
})

describe.runIf(withPostgres)("two processes starting at once on a new single-tenant Postgres database", () => {
  it.live("print one bootstrap key between them", () =>
    printsOneKey(Effect.scoped(Effect.flatMap(freshDatabase, (url) => startTogether(() => PostgresStorage.layer(url, 5))))))
})

describe("a configured bootstrap key another organization holds", () => {
  it.effect("stops the start instead of leaving the key acting in that organization", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const apiKeys = yield* ApiKeys
      const admin = { email: "admin@example.com" }
      const first = yield* organizations.create({ name: "First", slug: "first", initialAdmin: admin }, { _tag: "Service" })
      yield* organizations.create({ name: "Second", slug: "second", initialAdmin: admin }, { _tag: "Service" })
      const key = `pim_${"k".repeat(43)}`
      yield* apiKeys.ensure(first.id, key, "first's")
      const refused = yield* Effect.flip(ensureSingleTenant({ ...firstStart, slug: "second", apiKey: Option.some(key) }))
      expect(refused).toBeInstanceOf(BootstrapKeyElsewhere)
      expect(refused.message).toBe(`the key belongs to another organization (${first.id}), not to second: set a new key`)
      // The organization's own key is registered as before.
      yield* ensureSingleTenant({ ...firstStart, slug: "first", apiKey: Option.some(key) })
    }).pipe(Effect.provide(catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer() }))))
})

describe("a single-tenant start on a database that already holds organizations", () => {
  const multiTenant = () => catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer() })
  const made = (slug: string) =>
    Effect.flatMap(Organizations, (o) => o.create({ name: slug, slug, initialAdmin: { email: "admin@example.com" } }, { _tag: "Service" }))

  it.effect("serves the only one there is when none has the slug (it was renamed)", () =>
    Effect.gen(function*() {
      const only = yield* made("renamed")
      const { organization } = yield* ensureSingleTenant(firstStart)
      expect(organization).toEqual(only)
    }).pipe(Effect.provide(multiTenant())))

  it.effect("stops instead of taking over one of several when none has the slug", () =>
    Effect.gen(function*() {
      yield* made("first")
      yield* made("second")
      const refused = yield* Effect.flip(ensureSingleTenant(firstStart))
      expect(refused).toBeInstanceOf(AmbiguousBootstrapOrganization)
      expect(refused.message).toBe("no organization has the slug default and the database holds several: set the slug of the one to serve")
      // The slug of one of them picks it.
      const { organization } = yield* ensureSingleTenant({ ...firstStart, slug: "second" })
      expect(organization.slug).toBe("second")
    }).pipe(Effect.provide(multiTenant())))
})
