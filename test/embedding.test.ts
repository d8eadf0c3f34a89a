import { assert, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Cause, type ConfigError, Effect, Exit, Layer, Logger, Option, Schedule, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase, postgresAvailable } from "./support/Postgres.js"
import { startReceiver } from "./support/Receiver.js"
import {
  ApiKeys,
  type AuditEntry,
  type AuditFilter,
  AuditLog,
  Authentication,
  catalogLayer,
  Connectors,
  CreateBrand,
  CreateFamily,
  CreateOrganization,
  CreateProduct,
  CurrentTenant,
  DatabaseTooNew,
  decodeInput,
  DispatcherLive,
  Families,
  Forbidden,
  HttpWebhookSender,
  ListProductsQuery,
  MAX_MEDIA_BYTES,
  MediaLibrary,
  type Media,
  MemoryWebhookSender,
  type MigrationFailure,
  NotFound,
  OrganizationGone,
  Organizations,
  PostgresStorage,
  type Product,
  type ProductList,
  Products,
  SqliteStorage,
  type Storage,
  TooLarge,
  type UploadPart,
  ValidationFailed
} from "../index.js"

// What another Node app does: the catalog from a storage layer, called directly, no HTTP.
const catalog = catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer() })

// An app choosing its database at run time names the type both storage layers share.
const storageFor = (url: string): Layer.Layer<Storage, MigrationFailure | PostgresStorage.ConnectTimeout | ConfigError.ConfigError> =>
  url.startsWith("postgres://") ? PostgresStorage.layer(url) : SqliteStorage.layer(url)

// organization.deleted goes out in the background after the deletion and has no delivery log
// to be tried again from: an app that closed the catalog right after the call cut it off.
const deletedThenClosed = (storage: Layer.Layer<Storage, unknown>) => {
  const warnings: Array<unknown> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel._tag === "Warning") warnings.push(message)
  })
  return Effect.gen(function*() {
    const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
    let answer = () => {}
    receiver.answer("/farewell", { status: 503, until: new Promise((resolve) => { answer = resolve }) })
    const catalog = catalogLayer({ storage, webhooks: HttpWebhookSender.layer({ allowedPrivateAddresses: ["127.0.0.1"] }) })
    const org = yield* Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(catalog)
      // Added last, so run first: the receiver answers only once the catalog starts closing.
      yield* Effect.addFinalizer(() => Effect.sync(answer))
      return yield* Effect.gen(function*() {
        const org = yield* (yield* Organizations).create({ name: "Leaving shop", slug: "leaving" }, { _tag: "Service" })
        const admin = CurrentTenant.of({ organizationId: org.id, actor: { type: "user", id: "owner" }, role: "admin" })
        const connector = { destination_url: receiver.url("/farewell"), secret: "a-secret-of-16-chars", events: ["organization.*"] }
        yield* Effect.provideService(Effect.flatMap(Connectors, (c) => c.install({ type: "headless", name: "Storefront", config: connector })), CurrentTenant, admin)
        yield* Effect.provideService(Effect.flatMap(Organizations, (o) => o.delete(org.id, org.slug)), CurrentTenant, admin)
        yield* Effect.promise(() => receiver.waitFor((r) => r.path === "/farewell"))
        return org
      }).pipe(Effect.provide(context))
    }))
    expect(receiver.received.map((r) => [JSON.parse(r.text).name, JSON.parse(r.text).entity_id])).toEqual([["organization.deleted", org.id]])
    // Logged by the send itself, once the answer came: the catalog closed after it.
    expect(warnings).toEqual([[expect.stringMatching(/^organization\.deleted not delivered to connector .*: HTTP 503 is not a 2xx answer$/)]])
  }).pipe(Effect.scoped, Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
}

describe("embedding the catalog as a library", () => {
  it.live("runs on a storage chosen at run time, typed with the exported Storage", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Chosen shop", slug: "chosen" }, { _tag: "Service" })
      expect(org.slug).toBe("chosen")
    }).pipe(Effect.provide(catalogLayer({ storage: storageFor(":memory:"), webhooks: MemoryWebhookSender.layer() }))))

  it.live("creates an organization, issues a key and resolves it without HTTP", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const org = yield* organizations.create({ name: "Embedded shop", slug: "embedded" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const key = yield* Effect.provideService((yield* ApiKeys).create({ name: "worker" }), CurrentTenant, tenant)
      const principal = yield* (yield* Authentication).principal(key.key)
      expect(principal).toEqual({ _tag: "ApiKey", keyId: key.id, organizationId: org.id })
      const details = yield* Effect.provideService(organizations.current, CurrentTenant, tenant)
      expect(details.slug).toBe("embedded")
      const duplicate = yield* Effect.exit(organizations.create({ name: "Again", slug: "embedded" }, { _tag: "Service" }))
      assert(Exit.isFailure(duplicate))
    }).pipe(Effect.provide(catalog)))

  it.live("writes the catalog through the use cases the package exports", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Library shop", slug: "library" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inTenant((yield* Families).create({ code: "shirts", label: { en: "Shirts" } }))
      const product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Linen shirt" }))
      expect(product.slug).toBe("linen-shirt")
      const audit = yield* inTenant((yield* AuditLog).list({ entityId: product.id, limit: 10, offset: 0 }))
      expect(audit.data.map((entry) => entry.name)).toEqual(["product.created"])
    }).pipe(Effect.provide(catalog)))

  it.live("delivers webhooks while the README's dispatcher runs, in the scope that built it", () =>
    Effect.gen(function*() {
      const webhooks = MemoryWebhookSender.layer()
      const catalog = catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks })
      // The same sender layer, built once per build, also gives the test what it recorded.
      const app = DispatcherLive().pipe(Layer.provideMerge(catalog), Layer.provideMerge(webhooks))
      const run = Effect.gen(function*() {
        const org = yield* (yield* Organizations).create({ name: "Hooked shop", slug: "hooked" }, { _tag: "Service" })
        const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
        const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
        yield* inTenant((yield* Connectors).install({
          type: "headless",
          name: "Storefront",
          config: { destination_url: "https://hooks.example.com/catalog", secret: "a-secret-of-16-chars" }
        }))
        const family = yield* inTenant((yield* Families).create({ code: "lamps", label: { en: "Lamps" } }))
        const product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Desk lamp" }))
        const recorded = yield* MemoryWebhookSender.RecordedWebhooks
        const sent = yield* recorded.all.pipe(
          Effect.filterOrFail((all) => all.length > 0, () => "nothing sent yet"),
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(100))))
        )
        expect(sent.map((request) => [request.url, JSON.parse(request.text).name, JSON.parse(request.text).entity_id])).toEqual([
          ["https://hooks.example.com/catalog", "product.created", product.id]
        ])
      })
      yield* Effect.scoped(Layer.build(app).pipe(Effect.flatMap((context) => Effect.provide(run, context))))
    }))

  it.live("sends organization.deleted before the catalog that deleted it finishes closing", () =>
    deletedThenClosed(SqliteStorage.layer(":memory:")))

  it.live("answers values of the types it exports, for an app to name in its own code", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Typed shop", slug: "typed" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "service", id: "typed" }, role: null })
      const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inTenant((yield* Families).create({ code: "cups", label: { en: "Cups" } }))
      const product: Product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Cup" }))
      const page: ProductList = yield* inTenant((yield* Products).list({}))
      const file = (text: string): Stream.Stream<UploadPart<never>> =>
        Stream.succeed<UploadPart<never>>({ _tag: "File", key: "file", filename: "cup.txt", contentType: "text/plain", content: Stream.make(new TextEncoder().encode(text)) })
      const media: Media = yield* inTenant((yield* MediaLibrary).upload(product.id, file("cup")))
      const filter: AuditFilter = { entityId: product.id, limit: 10, offset: 0 }
      const entries: ReadonlyArray<AuditEntry> = (yield* inTenant((yield* AuditLog).list(filter))).data
      expect([page.data.map((p) => p.id), media.size, entries.map((e) => e.name)]).toEqual([[product.id], 3, ["product.created"]])
    }).pipe(Effect.provide(catalog)))

  it.live("filters the audit log by instants written in any ISO 8601 form, as the host takes them", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Dated shop", slug: "dated" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "service", id: "dated" }, role: null })
      const list = (bounds: Partial<AuditFilter>) =>
        Effect.provideService(Effect.flatMap(AuditLog, (log) => log.list({ ...bounds, limit: 10, offset: 0 })), CurrentTenant, tenant)
      const [created] = (yield* list({})).data
      const at = Date.parse(created!.createdAt)
      // The second the event happened in, in UTC without milliseconds and at an offset.
      const second = new Date(at - (at % 1000)).toISOString()
      const forms = [second.replace(".000Z", "Z"), new Date(Date.parse(second) + 3_600_000).toISOString().replace(".000Z", "+01:00")]
      for (const since of forms) expect([since, (yield* list({ since })).data.length]).toEqual([since, 1])
      for (const until of forms) expect([until, (yield* list({ until })).data.length]).toEqual([until, 0])
      expect((yield* list({ since: second.slice(0, 10) })).data.length).toBe(1)
    }).pipe(Effect.provide(catalog)))

  it.live("decodes untrusted input with the schemas and refusals of the HTTP host, as ValidationFailed", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Decoding shop", slug: "decoding" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const refused = (effect: Effect.Effect<unknown, ValidationFailed>) =>
        Effect.flip(effect).pipe(Effect.map((e) => (expect(e).toBeInstanceOf(ValidationFailed), e.issues.map(({ code, path }) => ({ code, path })))))

      // Every issue at once, as a 422 lists them.
      expect(yield* refused(decodeInput(CreateBrand)({ name: "", slug: "Not a slug" }))).toEqual([
        { code: "invalid", path: ["name"] },
        { code: "invalid", path: ["slug"] }
      ])
      expect(yield* refused(decodeInput(CreateProduct)({ name: 42 }))).toEqual([
        { code: "required", path: ["familyId"] },
        { code: "invalid_type", path: ["name"] }
      ])
      // Text no database stores, and nesting past 64 levels, are refused before the schema.
      expect(yield* refused(decodeInput(CreateOrganization)({ name: "Bad\u0000name", slug: "bad" }))).toEqual([
        { code: "invalid_character", path: ["name"] }
      ])
      let deep: unknown = "leaf"
      for (let i = 0; i < 100_000; i++) deep = [deep]
      expect(yield* refused(decodeInput(CreateProduct)({ name: "Deep", familyId: org.id, attributes: { x: deep } }))).toEqual([
        { code: "too_deep", path: [] }
      ])
      // Query schemas decode URL parameters (text) and refuse unknown keys, as the host does.
      expect(yield* refused(decodeInput(ListProductsQuery)({ limit: "2", colour: "red" }))).toEqual([
        { code: "unrecognized_key", path: ["colour"] }
      ])

      const family = yield* inTenant((yield* Families).create(yield* decodeInput(CreateFamily)({ code: "mugs", label: { en: "Mugs" } })))
      const body: unknown = JSON.parse(JSON.stringify({ familyId: family.id, name: "Tall mug", tags: ["Blue Glaze"] }))
      const product = yield* inTenant((yield* Products).create(yield* decodeInput(CreateProduct)(body)))
      const page = yield* inTenant((yield* Products).list(yield* decodeInput(ListProductsQuery)({ limit: "1", tag: "blue-glaze" })))
      expect(page.data.map((p) => p.id)).toEqual([product.id])
    }).pipe(Effect.provide(catalog)))

  it.live("refuses an upload over the media limit with TooLarge", () =>
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ name: "Upload shop", slug: "uploads" }, { _tag: "Service" })
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "system", id: org.id }, role: null })
      const inTenant = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inTenant((yield* Families).create({ code: "posters", label: { en: "Posters" } }))
      const product = yield* inTenant((yield* Products).create({ familyId: family.id, name: "Poster" }))
      const chunk = new Uint8Array(4 * 1024 * 1024)
      const content = Stream.repeatValue(chunk).pipe(Stream.take(Math.ceil(MAX_MEDIA_BYTES / chunk.length) + 1))
      const error = yield* Effect.flip(inTenant((yield* MediaLibrary).upload(
        product.id,
        Stream.make({ _tag: "File" as const, key: "file", filename: "huge.bin", contentType: "application/octet-stream", content })
      )))
      expect(error).toBeInstanceOf(TooLarge)
      expect((yield* inTenant((yield* MediaLibrary).list(product.id, { limit: 10, offset: 0 }))).data).toEqual([])
    }).pipe(Effect.provide(catalog)))

  it.live("serves one organization in single-tenant mode, as the README shows", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const shop = yield* organizations.ensureBootstrap("default")
      expect(yield* organizations.ensureBootstrap("default")).toEqual(shop)
      const tenant = CurrentTenant.of({ organizationId: shop.id, actor: { type: "service", id: "storefront-sync" }, role: null })
      const inShop = <A, E>(effect: Effect.Effect<A, E, CurrentTenant>) => Effect.provideService(effect, CurrentTenant, tenant)
      const family = yield* inShop((yield* Families).create({ code: "chairs", label: { en: "Chairs" } }))
      const product = yield* inShop((yield* Products).create({ familyId: family.id, name: "Oak chair" }))
      expect(product.organizationId).toBe(shop.id)
      const another = yield* Effect.flip(organizations.create({ name: "Second", slug: "second" }, { _tag: "Service" }))
      expect(another).toBeInstanceOf(Forbidden)
    }).pipe(Effect.provide(catalogLayer({ storage: SqliteStorage.layer(":memory:"), webhooks: MemoryWebhookSender.layer(), tenancy: "single" }))))

  it.live("deletes an organization as its admin; a write into it afterwards dies with OrganizationGone", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const org = yield* organizations.create({ name: "Closing shop", slug: "closing" }, { _tag: "Service" })
      const service = CurrentTenant.of({ organizationId: org.id, actor: { type: "service", id: "sync" }, role: null })
      const admin = CurrentTenant.of({ organizationId: org.id, actor: { type: "user", id: crypto.randomUUID() }, role: "admin" })
      const family = yield* Effect.provideService((yield* Families).create({ code: "boxes", label: { en: "Boxes" } }), CurrentTenant, service)
      // As over HTTP, only an admin of the organization deletes it.
      const refused = yield* Effect.flip(Effect.provideService(organizations.delete(org.id, "closing"), CurrentTenant, service))
      expect(refused).toBeInstanceOf(Forbidden)
      const deleted = yield* Effect.provideService(organizations.delete(org.id, "closing"), CurrentTenant, admin)
      expect(deleted.exportKey).toMatch(new RegExp(`^exports/${org.id}/`))
      // A record it looked up is gone; a row it would insert has no organization left to belong to.
      const missing = yield* Effect.flip(Effect.provideService((yield* Families).get(family.id), CurrentTenant, service))
      expect(missing).toBeInstanceOf(NotFound)
      const exit = yield* Effect.exit(Effect.provideService((yield* Families).create({ code: "crates", label: { en: "Crates" } }), CurrentTenant, service))
      assert(Exit.isFailure(exit))
      const defect = Cause.dieOption(exit.cause)
      assert(Option.isSome(defect))
      expect(defect.value).toBeInstanceOf(OrganizationGone)
      expect((defect.value as OrganizationGone).organizationId).toBe(org.id)
    }).pipe(Effect.provide(catalog)))

  // The migrations at start were defects: an app could not tell a database it may not use from a bug.
  it.live("fails to build on a database a newer version migrated, with DatabaseTooNew", () =>
    Effect.gen(function*() {
      const folder = mkdtempSync(join(tmpdir(), "catalog-embed-"))
      const file = join(folder, "catalog.db")
      const build = Effect.scoped(Layer.build(catalogLayer({ storage: SqliteStorage.layer(file), webhooks: MemoryWebhookSender.layer() })))
      yield* build
      const db = new Database(file)
      db.prepare("insert into effect_sql_migrations (migration_id, name) values (9999, 'future')").run()
      db.close()
      const exit = yield* Effect.exit(build)
      rmSync(folder, { recursive: true, force: true })
      assert(Exit.isFailure(exit))
      const failure = Cause.failureOption(exit.cause)
      assert(Option.isSome(failure) && failure.value instanceof DatabaseTooNew)
      expect(failure.value.latest).toBe(9999)
    }))
})

const postgres = await postgresAvailable()

describe.runIf(postgres)("embedding the catalog on Postgres", () => {
  // The use is recorded in the background; an app that closes the catalog right after a call
  // closed the connections under that write, and the key's last use was lost.
  it.live("records a key's last use even when the catalog closes right after it", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabase
      const catalog = catalogLayer({ storage: PostgresStorage.layer(url, 2), webhooks: MemoryWebhookSender.layer() })
      const session = <A, E>(effect: Effect.Effect<A, E, Organizations | ApiKeys | Authentication>) =>
        Effect.scoped(Layer.build(catalog).pipe(Effect.flatMap((context) => Effect.provide(effect, context))))
      const org = yield* session(Effect.flatMap(Organizations, (o) => o.create({ name: "Closing", slug: "closing" }, { _tag: "Service" })))
      const tenant = CurrentTenant.of({ organizationId: org.id, actor: { type: "service", id: "app" }, role: null })
      const key = yield* session(Effect.provideService(Effect.flatMap(ApiKeys, (k) => k.create({ name: "worker" })), CurrentTenant, tenant))
      yield* session(Effect.flatMap(Authentication, (a) => a.principal(key.key)))
      const keys = yield* session(Effect.provideService(Effect.flatMap(ApiKeys, (k) => k.list), CurrentTenant, tenant))
      expect(keys.find((k) => k.id === key.id)?.lastUsedAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/))
    }).pipe(Effect.scoped), 60_000)

  it.live("sends organization.deleted before the catalog that deleted it finishes closing", () =>
    Effect.scoped(Effect.flatMap(freshDatabase, (url) => deletedThenClosed(PostgresStorage.layer(url, 2)))), 60_000)
})
