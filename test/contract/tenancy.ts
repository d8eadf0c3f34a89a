import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import { assert, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, type Layer, Option, Schema, Stream, TestClock } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Connectors } from "../../core/connectors/Connectors.js"
import { Brands } from "../../core/catalog/Brands.js"
import { mediaFolder, type UploadPart } from "../../core/media/Media.js"
import { MediaLibrary } from "../../core/media/MediaLibrary.js"
import { Products } from "../../core/products/Products.js"
import { AttributeGroups } from "../../core/schema/AttributeGroups.js"
import { OrganizationGone } from "../../core/shared/Errors.js"
import { BlobStore } from "../../core/shared/BlobStore.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { ApiKeyRepository } from "../../core/tenancy/ApiKeyRepository.js"
import { ApiKeys } from "../../core/tenancy/ApiKeys.js"
import { Authentication } from "../../core/tenancy/Authentication.js"
import { OrganizationRepository } from "../../core/tenancy/OrganizationRepository.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { UserRepository } from "../../core/tenancy/UserRepository.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { familyWith } from "../support/Families.js"
import { eventCount, eventsOf as eventPayloads, ONE_DELETION, outcomeOf, raced, racedChanges, schemaFixture, val } from "../support/CatalogFixtures.js"

const eventsOf = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const uow = yield* UnitOfWork
    const rows = yield* uow.tenant(organizationId, sql`select name, entity_id, actor_type from events where organization_id = ${organizationId} order by seq`)
    return yield* Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String, entityId: Schema.String, actorType: Schema.String })))(rows)
  }).pipe(Effect.orDie)

/** Organizations, users and API keys against one storage adapter. */
export const tenancySuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
  it.effect("creates an organization and refuses a taken slug", () =>
    Effect.gen(function*() {
      const { organization } = yield* newTenant
      const organizations = yield* Organizations
      const again = yield* Effect.flip(organizations.create({ name: "Other", slug: organization.slug }, { _tag: "Service" }))
      assert(again._tag === "ValidationFailed")
      expect(again.issues.map((issue) => [issue.path, issue.code])).toEqual([[["slug"], "taken"]])
      const found = yield* (yield* UnitOfWork).system((yield* OrganizationRepository).findBySlug(organization.slug))
      expect(Option.map(found, (o) => o.id)).toEqual(Option.some(organization.id))
    }))

  it.effect("records organization.created with the write", () =>
    Effect.gen(function*() {
      const { organization } = yield* newTenant
      const events = yield* eventsOf(organization.id)
      expect(events.map((e) => e.name)).toEqual(["organization.created"])
      expect(events[0]?.actorType).toBe("service")
    }))

  it.effect("issues an API key whose plaintext is never stored and which resolves to its organization", () =>
    Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const keys = yield* ApiKeys
      const created = yield* Effect.provideService(keys.create({ name: "ci" }), CurrentTenant, tenant)
      expect(created.key).toMatch(/^pim_[A-Za-z0-9_-]{43}$/)
      expect(created.prefix).toBe(created.key.slice(0, 8))
      const stored = yield* (yield* UnitOfWork).tenant(organization.id, (yield* ApiKeyRepository).list(organization.id))
      expect(JSON.stringify(stored)).not.toContain(created.key)
      const auth = yield* Authentication
      const principal = yield* auth.principal(created.key)
      expect(principal).toEqual({ _tag: "ApiKey", keyId: created.id, organizationId: organization.id })
    }))

  it.effect("refuses revoked, expired, unknown and malformed keys", () =>
    Effect.gen(function*() {
      const { tenant } = yield* newTenant
      const keys = yield* ApiKeys
      const auth = yield* Authentication
      const inTenant = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      const revoked = yield* inTenant(keys.create({ name: "to revoke" }))
      yield* auth.principal(revoked.key)
      yield* inTenant(keys.revoke(revoked.id))
      const again = yield* Effect.exit(inTenant(keys.revoke(revoked.id)))
      assert(Exit.isFailure(again))
      expect(JSON.stringify(again.cause)).toContain("NotFound")
      expect(Exit.isFailure(yield* Effect.exit(auth.principal(revoked.key)))).toBe(true)

      // TestClock: now is the epoch, so this key expires a minute in.
      const expiring = yield* inTenant(keys.create({ name: "short", expiresAt: "1970-01-01T00:01:00Z" }))
      expect(Exit.isSuccess(yield* Effect.exit(auth.principal(expiring.key)))).toBe(true)
      yield* TestClock.adjust("2 minutes")
      expect(Exit.isFailure(yield* Effect.exit(auth.principal(expiring.key)))).toBe(true)

      expect(Exit.isFailure(yield* Effect.exit(auth.principal(`pim_${"A".repeat(43)}`)))).toBe(true)
      expect(Exit.isFailure(yield* Effect.exit(auth.principal("pim_short")))).toBe(true)
      expect(Exit.isFailure(yield* Effect.exit(auth.principal(undefined)))).toBe(true)
    }))

  it.effect("never shows one organization's keys to another", () =>
    Effect.gen(function*() {
      const a = yield* newTenant
      const b = yield* newTenant
      const keys = yield* ApiKeys
      const key = yield* Effect.provideService(keys.create({ name: "a's" }), CurrentTenant, a.tenant)
      const listedByB = yield* Effect.provideService(keys.list, CurrentTenant, b.tenant)
      expect(listedByB.map((k) => k.id)).not.toContain(key.id)
      const renamedByB = yield* Effect.exit(Effect.provideService(keys.rename(key.id, { name: "stolen" }), CurrentTenant, b.tenant))
      assert(Exit.isFailure(renamedByB))
      expect(JSON.stringify(renamedByB.cause)).toContain("NotFound")
    }))

  it.effect("seats an existing user at once and turns an unknown email into an invite claimed on first sign-in", () =>
    Effect.gen(function*() {
      const users = yield* UserRepository
      const uow = yield* UnitOfWork
      const organizations = yield* Organizations
      const auth = yield* Authentication
      const crypto = yield* Crypto
      const existing = yield* crypto.uuid
      yield* uow.system(users.upsert({ id: existing, email: null }, "2026-01-01T00:00:00.000Z"))
      const slug = `seat-${existing.slice(-12)}`
      const seated = yield* organizations.create({ name: "Seated", slug, initialAdmin: { userId: existing } }, { _tag: "Service" })
      expect(yield* uow.system(users.roleIn(seated.id, existing))).toEqual(Option.some("admin"))

      const email = `new-${existing.slice(-12)}@example.com`
      const invited = yield* organizations.create({ name: "Invited", slug: `inv-${existing.slice(-12)}`, initialAdmin: { email } }, { _tag: "Service" })
      const newcomer = yield* crypto.uuid
      expect(yield* uow.system(users.roleIn(invited.id, newcomer))).toEqual(Option.none())
      const claimed = yield* uow.system(users.upsert({ id: newcomer, email }, "2026-01-01T00:00:00.000Z").pipe(
        Effect.zipRight(users.claimInvites(newcomer, email, "2026-01-01T00:00:00.000Z"))
      ))
      expect(claimed).toBe(1)
      const tenant = yield* auth.tenant({ _tag: "User", userId: newcomer, email }, invited.id)
      expect(tenant.role).toBe("admin")
      const unknownUser = yield* Effect.exit(organizations.create({ name: "X", slug: `x-${existing.slice(-12)}`, initialAdmin: { userId: yield* crypto.uuid } }, { _tag: "Service" }))
      assert(Exit.isFailure(unknownUser))
      expect(JSON.stringify(unknownUser.cause)).toContain("NotFound")
    }))

  it.effect("refuses an initialAdmin whose email is not the email of the user its userId names, seating no one", () =>
    Effect.gen(function*() {
      const users = yield* UserRepository
      const uow = yield* UnitOfWork
      const organizations = yield* Organizations
      const crypto = yield* Crypto
      const [named, other, silent] = [yield* crypto.uuid, yield* crypto.uuid, yield* crypto.uuid]
      const emailOf = (id: string) => `user-${id.slice(-12)}@example.com`
      yield* uow.system(Effect.all([
        users.upsert({ id: named, email: emailOf(named) }, "2026-01-01T00:00:00.000Z"),
        users.upsert({ id: other, email: emailOf(other) }, "2026-01-01T00:00:00.000Z"),
        users.upsert({ id: silent, email: null }, "2026-01-01T00:00:00.000Z")
      ]))
      const create = (slug: string, initialAdmin: { userId: string; email: string }) =>
        Effect.flip(organizations.create({ name: "Both", slug: `${slug}-${named.slice(-12)}`, initialAdmin }, { _tag: "Service" }))
      for (const [slug, initialAdmin] of [
        ["another", { userId: named, email: emailOf(other) }],
        ["unseen", { userId: named, email: `new-${named.slice(-12)}@example.com` }],
        ["no-email", { userId: silent, email: emailOf(named) }]
      ] as const) {
        const refused = yield* create(slug, initialAdmin)
        assert(refused._tag === "ValidationFailed")
        expect(refused.issues.map((i) => [i.path, i.code])).toEqual([[["initialAdmin", "email"], "user_mismatch"]])
        expect(yield* uow.system((yield* OrganizationRepository).findBySlug(`${slug}-${named.slice(-12)}`))).toEqual(Option.none())
      }
      const both = yield* organizations.create(
        { name: "Both", slug: `both-${named.slice(-12)}`, initialAdmin: { userId: named, email: emailOf(named).toUpperCase() } },
        { _tag: "Service" }
      )
      expect(yield* uow.system(users.roleIn(both.id, named))).toEqual(Option.some("admin"))
    }))

  it.effect("deletes a tenant: export first, then every row, leaving other tenants untouched", () =>
    Effect.gen(function*() {
      const doomed = yield* newTenant
      const survivor = yield* newTenant
      const keys = yield* ApiKeys
      const inDoomed = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
      const doomedKey = yield* inDoomed(keys.create({ name: "doomed" }))
      const survivorKey = yield* Effect.provideService(keys.create({ name: "survivor" }), CurrentTenant, survivor.tenant)
      const organizations = yield* Organizations

      const wrong = yield* Effect.exit(inDoomed(organizations.delete(doomed.organization.id, "nope")))
      assert(Exit.isFailure(wrong))
      expect(JSON.stringify(wrong.cause)).toContain("ValidationFailed")

      const result = yield* inDoomed(organizations.delete(doomed.organization.id, doomed.organization.slug))
      expect(result.deletedCounts.organizations).toBe(1)
      expect(result.deletedCounts.apiKeys).toBe(1)
      const exported = yield* (yield* BlobStore).get(result.exportKey)
      assert(exported !== undefined)
      const dump = JSON.parse(new TextDecoder().decode(exported))
      expect(dump.organization.id).toBe(doomed.organization.id)
      expect(dump.tables.api_keys).toHaveLength(1)
      expect(dump.tables.api_keys[0].name).toBe("doomed")

      const auth = yield* Authentication
      expect(Exit.isFailure(yield* Effect.exit(auth.principal(doomedKey.key)))).toBe(true)
      expect(Exit.isSuccess(yield* Effect.exit(auth.principal(survivorKey.key)))).toBe(true)
      const gone = yield* (yield* UnitOfWork).system((yield* OrganizationRepository).findById(doomed.organization.id))
      expect(Option.isNone(gone)).toBe(true)
    }))

  it.effect("removes a deleted tenant's uploaded files from the blob store once its rows are gone, and keeps its export and others' files", () =>
    Effect.gen(function*() {
      const blobs = yield* BlobStore
      const upload = (tenant: typeof CurrentTenant.Service) =>
        Effect.gen(function*() {
          const family = yield* familyWith(tenant, "product", [])
          const product = yield* Effect.provideService((yield* Products).create({ familyId: family.id, name: "Lamp" }), CurrentTenant, tenant)
          const file: UploadPart<never> = { _tag: "File", key: "file", filename: "a.txt", contentType: "text/plain", content: Stream.make(new TextEncoder().encode("bytes")) }
          const media = yield* Effect.provideService((yield* MediaLibrary).upload(product.id, Stream.make(file)), CurrentTenant, tenant)
          return `${mediaFolder(tenant.organizationId)}/${media.id}`
        })
      const doomed = yield* newTenant
      const survivor = yield* newTenant
      const doomedFiles = [yield* upload(doomed.tenant), yield* upload(doomed.tenant)]
      const survivorFile = yield* upload(survivor.tenant)
      const stored = (key: string) => Effect.map(blobs.get(key), (b) => b !== undefined)
      expect(yield* Effect.forEach(doomedFiles, stored)).toEqual([true, true])

      // A deletion refused keeps the files.
      const organizations = yield* Organizations
      yield* Effect.exit(Effect.provideService(organizations.delete(doomed.organization.id, "nope"), CurrentTenant, doomed.tenant))
      expect(yield* Effect.forEach(doomedFiles, stored)).toEqual([true, true])

      const result = yield* Effect.provideService(organizations.delete(doomed.organization.id, doomed.organization.slug), CurrentTenant, doomed.tenant)
      expect(yield* Effect.forEach(doomedFiles, stored)).toEqual([false, false])
      expect(yield* stored(result.exportKey)).toBe(true)
      // The export keeps the rows that named the files, a size as a number on either database.
      const exported = JSON.parse(new TextDecoder().decode((yield* blobs.get(result.exportKey)) ?? new Uint8Array()))
      expect(exported.tables.media.map((m: { size: unknown }) => m.size)).toEqual([5, 5])
      expect(yield* stored(survivorFile)).toBe(true)
    }))

  it.effect("answers a write into an organization deleted since its credentials were resolved as the organization gone", () =>
    Effect.gen(function*() {
      const doomed = yield* newTenant
      const inDoomed = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
      yield* inDoomed((yield* Organizations).delete(doomed.organization.id, doomed.organization.slug))
      const writes: ReadonlyArray<Effect.Effect<unknown, unknown, CurrentTenant>> = [
        (yield* ApiKeys).create({ name: "late" }),
        (yield* Brands).create({ name: "Late" }),
        (yield* Connectors).install({ type: "headless", name: "Late", config: { destination_url: "https://hooks.example.com/pim", secret: "late-secret-0123456789" } }),
        (yield* AttributeGroups).create({ code: "late", label: { en: "Late" } })
      ]
      for (const write of writes) {
        const exit = yield* Effect.exit(inDoomed(write))
        assert(Exit.isFailure(exit))
        const defects = [...Cause.defects(exit.cause)]
        expect(defects).toHaveLength(1)
        expect(defects[0]).toBeInstanceOf(OrganizationGone)
        expect(defects[0]).toMatchObject({ organizationId: doomed.organization.id })
      }
    }))

  it.effect("keeps a fault's own error in a transaction whose organization does not exist yet, as one creating it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const uow = yield* UnitOfWork
      const exit = yield* Effect.exit(uow.tenant("01900000-0000-7000-8000-0000000003a0", sql`select * from no_such_table`))
      assert(Exit.isFailure(exit))
      const defects = [...Cause.defects(exit.cause)]
      expect(defects).toHaveLength(1)
      expect(defects[0]).toBeInstanceOf(SqlError)
    }))

  it.effect("exports a tenant in one shape on every database, without credentials or outbox bookkeeping", () =>
    Effect.gen(function*() {
      const doomed = yield* newTenant
      const inDoomed = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
      const secret = "export-test-secret-0123456789"
      const key = yield* inDoomed(Effect.gen(function*() {
        const { family } = yield* schemaFixture
        yield* (yield* Products).create({ familyId: family.id, name: "Boot", tags: ["Trail", "wet"], attributes: { weight: val(3) } })
        yield* (yield* Connectors).install({ type: "headless", name: "Shop", config: { destination_url: "https://hooks.example.com/pim", secret, extra_headers: { Authorization: "Bearer receiver-token" } } })
        return yield* (yield* ApiKeys).create({ name: "doomed" })
      }))
      const result = yield* inDoomed((yield* Organizations).delete(doomed.organization.id, doomed.organization.slug))
      const text = new TextDecoder().decode(yield* (yield* BlobStore).get(result.exportKey).pipe(Effect.map((b) => b ?? new Uint8Array())))
      expect(text).not.toContain(createHash("sha256").update(key.key).digest("hex"))
      expect(text).not.toContain(secret)
      expect(text).not.toContain("receiver-token")
      const { tables } = JSON.parse(text)

      const [product] = tables.products
      expect(product.attributes).toEqual({ weight: val(3) })
      expect(product.tags).toEqual(["trail", "wet"])
      expect(product).not.toHaveProperty("seq")
      const weight = tables.attributes.find((a: { code: string }) => a.code === "weight")
      expect(weight).toMatchObject({ label: { en: "Weight" }, isLocalizable: false, isScopable: false, isVariantAxis: false, validation: null })
      expect(tables.attribute_families[0].label).toEqual({ en: "Shoes" })
      expect(tables.connectors[0]).toMatchObject({ name: "Shop", events: expect.arrayContaining(["product.*"]) })
      expect(tables.connectors[0]).not.toHaveProperty("secret")
      expect(tables.connectors[0]).not.toHaveProperty("extraHeaders")
      expect(tables.api_keys[0]).not.toHaveProperty("keyHash")

      expect(tables.events.map((e: { name: string }) => e.name)).toEqual([
        "organization.created", "attribute.created", "attribute.created", "attribute.created", "attribute.created",
        "family.created", "family_attribute.created", "family_attribute.created", "family_attribute.created",
        "family_attribute.created", "product.created", "connector.created", "api_key.created"
      ])
      expect(tables.events[0].payload).toEqual({ slug: doomed.organization.slug })
      expect(Object.keys(tables.events[0]).sort()).toEqual(["actorId", "actorType", "createdAt", "entityId", "entityType", "id", "name", "organizationId", "payload"])
    }))

  it.effect("exports each table's rows in the order of its key, text keys by their bytes, whatever order they were written in", () =>
    Effect.gen(function*() {
      const doomed = yield* newTenant
      const inDoomed = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
      yield* inDoomed(Effect.gen(function*() {
        const { family } = yield* schemaFixture
        // Slugs against the ids' order, so that a read through the slug index comes out of order.
        for (const [i, slug] of ["zulu", "yankee", "x-ray", "whiskey"].entries()) {
          yield* (yield* Products).create({ familyId: family.id, name: slug, slug, tags: ["zeta", "äpfel", "a-b", "ab", `t${9 - i}`] })
          yield* (yield* Brands).create({ name: `Brand ${slug}` })
        }
      }))
      // Pending invites are one per organization through the API; these stand for many, in no order.
      const sql = yield* SqlClient.SqlClient
      const emails = ["zed@x.test", "äb@x.test", "ab@x.test", "a_b@x.test", "a.b@x.test", "Ab@x.test"]
      for (const email of emails) {
        yield* sql`insert into invites ${sql.insert({ organizationId: doomed.organization.id, email, role: "editor", createdAt: "2026-01-01T00:00:00.000Z" })}`.pipe(Effect.orDie)
      }
      const result = yield* inDoomed((yield* Organizations).delete(doomed.organization.id, doomed.organization.slug))
      const text = new TextDecoder().decode(yield* (yield* BlobStore).get(result.exportKey).pipe(Effect.map((b) => b ?? new Uint8Array())))
      const tables: Record<string, ReadonlyArray<Record<string, string>>> = JSON.parse(text).tables
      const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
      const sortedBy = (rows: ReadonlyArray<Record<string, string>>, keys: ReadonlyArray<string>) =>
        [...rows].sort((a, b) => keys.reduce((order, key) => order || byBytes(a[key]!, b[key]!), 0))
      const keys: Record<string, ReadonlyArray<string>> = {
        products: ["id"], brands: ["id"], attributes: ["id"], product_tags: ["productId", "tag"],
        family_attributes: ["familyId", "attributeId"], invites: ["email"]
      }
      for (const [table, key] of Object.entries(keys)) {
        expect(tables[table]!.length, table).toBeGreaterThan(1)
        expect(tables[table], table).toEqual(sortedBy(tables[table]!, key))
      }
      expect(tables.invites!.map((i) => i.email)).toEqual(["Ab@x.test", "a.b@x.test", "a_b@x.test", "ab@x.test", "zed@x.test", "äb@x.test"])
    }))

  it.effect("deletes a tenant once under concurrent deletions and writes, exporting every row it deletes", () =>
    Effect.gen(function*() {
      const doomed = yield* newTenant
      const inDoomed = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, doomed.tenant)
      const { family } = yield* inDoomed(schemaFixture)
      const products = yield* Products
      const organizations = yield* Organizations
      const create = (i: number) => Effect.exit(inDoomed(products.create({ familyId: family.id, name: `Racer ${i}` })))
      const remove = Effect.exit(inDoomed(organizations.delete(doomed.organization.id, doomed.organization.slug)))
      const [writes, deletions] = yield* Effect.all([
        Effect.all(Array.from({ length: 12 }, (_, i) => create(i)), { concurrency: "unbounded" }),
        Effect.all([remove, remove, remove], { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      const done = deletions.flatMap((e) => (Exit.isSuccess(e) ? [e.value] : []))
      expect(done).toHaveLength(1)
      expect(deletions.map(outcomeOf).sort()).toEqual(["NotFound", "NotFound", "ok"])
      // A write after the deletion finds the organization or its family gone; none is a defect.
      expect(writes.map(outcomeOf).filter((o) => !["ok", "NotFound", "ValidationFailed"].includes(o))).toEqual([])
      const text = new TextDecoder().decode(yield* (yield* BlobStore).get(done[0]!.exportKey).pipe(Effect.map((b) => b ?? new Uint8Array())))
      const { tables } = JSON.parse(text)
      expect(tables.products).toHaveLength(done[0]!.deletedCounts.products!)
      expect(tables.events).toHaveLength(done[0]!.deletedCounts.events!)
      expect((yield* eventsOf(doomed.organization.id)).map((e) => e.name)).toEqual(["organization.deleted"])
    }))

  it.effect("refuses deletion by an API key and answers another organization's id as not found", () =>
    Effect.gen(function*() {
      const a = yield* newTenant
      const b = yield* newTenant
      const organizations = yield* Organizations
      const asKey = CurrentTenant.of({ organizationId: a.organization.id, actor: { type: "api_key", id: a.tenant.actor.id }, role: null })
      const byKey = yield* Effect.exit(Effect.provideService(organizations.delete(a.organization.id, a.organization.slug), CurrentTenant, asKey))
      assert(Exit.isFailure(byKey))
      expect(JSON.stringify(byKey.cause)).toContain("Forbidden")
      const other = yield* Effect.exit(Effect.provideService(organizations.delete(b.organization.id, b.organization.slug), CurrentTenant, a.tenant))
      assert(Exit.isFailure(other))
      expect(JSON.stringify(other.cause)).toContain("NotFound")
    }))

  it.effect("resolves an editor's session with its role, lets it write the catalog and refuses it the organization's deletion", () =>
    Effect.gen(function*() {
      const a = yield* newTenant
      const users = yield* UserRepository
      const uow = yield* UnitOfWork
      const crypto = yield* Crypto
      const auth = yield* Authentication
      const organizations = yield* Organizations
      const groups = yield* AttributeGroups
      const editor = yield* crypto.uuid
      yield* uow.system(users.upsert({ id: editor, email: null }, "2026-01-01T00:00:00.000Z"))
      yield* uow.tenant(a.organization.id, users.addMembership(a.organization.id, editor, "editor", "2026-01-01T00:00:00.000Z"))
      const tenant = yield* auth.tenant({ _tag: "User", userId: editor, email: null }, a.organization.id)
      expect(tenant.role).toBe("editor")
      const group = yield* Effect.provideService(groups.create({ code: "by_editor", label: { en: "By editor" } }), CurrentTenant, tenant)
      expect(group.code).toBe("by_editor")
      const deletion = yield* Effect.exit(Effect.provideService(organizations.delete(a.organization.id, a.organization.slug), CurrentTenant, tenant))
      assert(Exit.isFailure(deletion))
      expect(JSON.stringify(deletion.cause)).toContain("Forbidden")
    }))

  it.effect("revokes an API key once under concurrent revocations, and records one rename when several send it, the others as changing nothing", () =>
    Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const keys = yield* ApiKeys
      const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      const revoked = yield* as(keys.create({ name: "ci" }))
      expect(yield* raced(as(keys.revoke(revoked.id)))).toEqual(ONE_DELETION)
      expect(yield* eventCount(organization.id, "api_key.revoked")).toBe(1)
      const renamed = yield* as(keys.create({ name: "deploy" }))
      expect(yield* raced(as(keys.rename(renamed.id, { name: "release" })))).toEqual(Array(6).fill("ok"))
      const updates = (yield* eventPayloads(organization.id)).filter((e) => e.name === "api_key.updated").map((e) => e.payload)
      expect(updates).toEqual([{ changed_fields: ["name"] }, ...Array(5).fill({ changed_fields: [] })])
    }))

  it.effect("keeps every one of concurrent patches of a connector, each recording only what it changed, and deletes it once", () =>
    Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const connectors = yield* Connectors
      const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      const installed = yield* as(connectors.install({ type: "headless", name: "Shop", config: { destination_url: "https://hooks.example.com/pim", secret: "connector-race-secret-0123456789" } }))
      const changes = yield* racedChanges(organization.id, "connector.updated", [
        as(connectors.update(installed.id, { name: "Storefront" })),
        as(connectors.update(installed.id, { config: { events: ["product.created"] } }))
      ])
      expect(changes).toEqual(['["config.events"]', '["name"]', "[]", "[]"])
      expect(yield* as(connectors.get(installed.id))).toMatchObject({ name: "Storefront", config: { events: ["product.created"] } })
      expect(yield* raced(as(connectors.remove(installed.id)))).toEqual(ONE_DELETION)
      expect(yield* eventCount(organization.id, "connector.deleted")).toBe(1)
    }))

  it.effect("keeps every one of concurrent patches of the organization, settings merged into what the others wrote", () =>
    Effect.gen(function*() {
      const { organization, tenant } = yield* newTenant
      const organizations = yield* Organizations
      const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      const changes = yield* racedChanges(organization.id, "organization.updated", [
        as(organizations.updateCurrent({ name: "Renamed" })),
        as(organizations.updateCurrent({ settings: { default_locale: "de" } })),
        as(organizations.updateCurrent({ settings: { default_channel: "web" } }))
      ])
      expect(changes).toEqual(['["name"]', '["settings"]', '["settings"]', "[]", "[]", "[]"])
      expect(yield* as(organizations.current)).toMatchObject({ name: "Renamed", settings: { default_locale: "de", default_channel: "web" } })
    }))

  it.effect("removes a setting sent as null and keeps the others, and leaves an organization without settings without them", () =>
    Effect.gen(function*() {
      const { tenant } = yield* newTenant
      const organizations = yield* Organizations
      const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
      expect((yield* as(organizations.updateCurrent({ settings: { default_locale: null } }))).settings).toBeNull()
      // Merging no key into no settings leaves none, and changes nothing.
      const untouched = yield* as(organizations.updateCurrent({ settings: {} }))
      expect([untouched.settings, untouched.updatedAt]).toEqual([null, (yield* as(organizations.current)).createdAt])
      yield* as(organizations.updateCurrent({ settings: { default_locale: "de", default_channel: "web", content_pages_enabled: false } }))
      const unset = yield* as(organizations.updateCurrent({ settings: { default_locale: null } }))
      expect(unset.settings).toEqual({ default_channel: "web", content_pages_enabled: false })
      expect((yield* as(organizations.current)).settings).toEqual({ default_channel: "web", content_pages_enabled: false })
      const emptied = yield* as(organizations.updateCurrent({ settings: { default_channel: null, content_pages_enabled: null } }))
      expect(emptied.settings).toEqual({})
    }))
})
