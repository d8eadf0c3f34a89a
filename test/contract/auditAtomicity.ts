import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Cause, Data, Effect, Exit, FiberRef, Layer, Stream } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { TENANT_TABLES } from "../../adapters/sql/TenantTables.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { Connectors } from "../../core/connectors/Connectors.js"
import { ContentPages } from "../../core/content/ContentPages.js"
import type { CatalogEvent } from "../../core/events/Event.js"
import { EventLog } from "../../core/events/EventLog.js"
import type { UploadPart } from "../../core/media/Media.js"
import { MediaLibrary } from "../../core/media/MediaLibrary.js"
import { Modifiers } from "../../core/modifiers/Modifiers.js"
import { ProductModifiers } from "../../core/modifiers/ProductModifiers.js"
import { Products } from "../../core/products/Products.js"
import { Relationships } from "../../core/relationships/Relationships.js"
import { AttributeGroups } from "../../core/schema/AttributeGroups.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { ApiKeys } from "../../core/tenancy/ApiKeys.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { Variants } from "../../core/variants/Variants.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { attr, entry } from "../support/Families.js"

/** What a write meets when the process fails right after it has appended its events. */
class CrashAfterAppend extends Data.TaggedError("CrashAfterAppend") {}

/** Set (to a list that collects the names of the events appended) while a write is to crash right after its append. */
const crashing = FiberRef.unsafeMake<Array<string> | undefined>(undefined)

/** The storage's event log, appending as usual and then, inside a write run under `crashing`, dying. */
const crashAfterAppend = Layer.effect(
  EventLog,
  Effect.map(EventLog, (log) => {
    const crash = (events: ReadonlyArray<CatalogEvent>) =>
      Effect.flatMap(FiberRef.get(crashing), (appended) => {
        if (appended === undefined) return Effect.void
        appended.push(...events.map((e) => e.name))
        return Effect.die(new CrashAfterAppend())
      })
    return EventLog.of({
      ...log,
      append: (events) => Effect.zipRight(log.append(events), crash(events)),
      appendSent: (events) => Effect.zipRight(log.appendSent(events), crash(events))
    })
  })
)

/** Every row the organization has, table by table: its own row and those of every tenant table, events included. */
const rowsOf = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const uow = yield* UnitOfWork
    const tables: Record<string, ReadonlyArray<string>> = {}
    for (const table of ["organizations", ...TENANT_TABLES]) {
      const column = table === "organizations" ? "id" : "organization_id"
      const rows = yield* uow.tenant(organizationId, sql`select * from ${sql(table)} where ${sql(column)} = ${organizationId}`)
      tables[table] = rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))).sort()
    }
    return tables
  }).pipe(Effect.orDie)

const file = (name: string): UploadPart<never> => ({
  _tag: "File",
  key: "file",
  filename: name,
  contentType: "text/plain",
  content: Stream.fromIterable([new TextEncoder().encode(name)])
})

/**
 * Every kind of write records its audit entry in the write's own transaction: made to crash
 * right after appending its event, each write leaves the organization's rows (events included)
 * as they were.
 */
export const auditAtomicitySuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(crashAfterAppend.pipe(Layer.provideMerge(storage))), { timeout: 120_000 })(name, (it) => {
    it.effect("records every kind of write and its audit entry together: a crash after the entry is appended undoes the write too", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const products = yield* Products
        const variants = yield* Variants
        const categories = yield* Categories
        const brands = yield* Brands
        const attributes = yield* Attributes
        const families = yield* Families
        const groups = yield* AttributeGroups
        const media = yield* MediaLibrary
        const pages = yield* ContentPages
        const connectors = yield* Connectors
        const modifiers = yield* Modifiers
        const productModifiers = yield* ProductModifiers
        const relationships = yield* Relationships
        const keys = yield* ApiKeys
        const organizations = yield* Organizations
        const as = <A, E2, R>(e: Effect.Effect<A, E2, R>) => Effect.provideService(e, CurrentTenant, tenant)

        // One of everything, written as usual.
        const fixture = yield* as(Effect.gen(function*() {
          const weight = yield* attributes.create(attr("weight", { type: "number" }))
          const spare = yield* attributes.create(attr("spare"))
          const family = yield* families.create({ code: "lamps", label: { en: "Lamps" } })
          yield* families.attach(family.id, { attributeId: weight.id })
          const unused = yield* families.create({ code: "unused", label: {} })
          const pageFamily = yield* families.create({ code: "pages", label: {}, entityKind: "content" })
          const category = yield* categories.create({ name: "Lamps" })
          const brand = yield* brands.create({ name: "Lumen" })
          const lamp = yield* products.create({
            familyId: family.id,
            name: "Lamp",
            brandId: brand.id,
            categoryIds: [category.id],
            tags: ["bright"],
            attributes: { weight: entry(2) }
          })
          const shade = yield* products.create({ familyId: family.id, name: "Shade" })
          const variant = yield* variants.create(lamp.id, { sku: "LAMP-1" })
          const engraving = yield* modifiers.create({ code: "engraving", name: "Engraving", type: "text" })
          const wrapping = yield* modifiers.create({ code: "wrapping", name: "Wrapping", type: "text" })
          yield* productModifiers.attach(lamp.id, engraving.id)
          const relationship = yield* relationships.create(lamp.id, { relatedProductId: shade.id, type: "accessory" })
          const photo = yield* media.upload(lamp.id, Stream.fromIterable([file("lamp.txt")]))
          const page = yield* pages.create({ familyId: pageFamily.id, title: "About" })
          const connector = yield* connectors.install({
            type: "headless",
            name: "Shop",
            config: { destination_url: "http://127.0.0.1:9/hook", secret: "whsec-0123456789abcdef0123456789abcdef", extra_headers: {} }
          })
          const key = yield* keys.create({ name: "ci" })
          return { weight, spare, family, unused, pageFamily, category, brand, lamp, shade, variant, engraving, wrapping, relationship, photo, page, connector, key }
        }))
        const f = fixture
        const writes: ReadonlyArray<readonly [event: string, write: Effect.Effect<unknown, unknown, CurrentTenant>]> = [
          ["product.created", products.create({ familyId: f.family.id, name: "Desk lamp" })],
          ["product.updated", products.update(f.lamp.id, { name: "Floor lamp", attributes: { weight: entry(3) } })],
          ["product.deleted", products.delete(f.lamp.id)],
          ["product.created", products.bulk([{ op: "create", familyId: f.family.id, name: "Bulk lamp" }])],
          ["product.updated", products.bulk([{ op: "update", id: f.shade.id, name: "Lampshade" }])],
          ["product.deleted", products.bulk([{ op: "delete", id: f.shade.id }])],
          ["variant.created", variants.create(f.lamp.id, { sku: "LAMP-2" })],
          ["variant.updated", variants.update(f.lamp.id, f.variant.id, { name: "Brass" })],
          ["variant.deleted", variants.remove(f.lamp.id, f.variant.id)],
          ["category.created", categories.create({ name: "Desks" })],
          ["category.updated", categories.update(f.category.id, { name: "Lights" })],
          ["category.deleted", categories.delete(f.category.id)],
          ["brand.created", brands.create({ name: "Glow" })],
          ["brand.updated", brands.update(f.brand.id, { name: "Lux" })],
          ["brand.deleted", brands.delete(f.brand.id)],
          ["attribute.created", attributes.create(attr("colour"))],
          ["attribute.updated", attributes.update(f.weight.id, { label: { en: "Mass" } })],
          ["attribute.deleted", attributes.delete(f.weight.id)],
          ["attribute_group.created", groups.create({ code: "main", label: { en: "Main" } })],
          ["family.created", families.create({ code: "desks", label: {} })],
          ["family.updated", families.update(f.family.id, { label: { en: "Lights" } })],
          ["family.deleted", families.delete(f.unused.id)],
          ["family_attribute.created", families.attach(f.family.id, { attributeId: f.spare.id })],
          ["family_attribute.updated", families.updateAttachment(f.family.id, f.weight.id, { position: 5 })],
          ["family_attribute.deleted", families.detach(f.family.id, f.weight.id)],
          ["media.attached", media.upload(f.lamp.id, Stream.fromIterable([file("shade.txt")]))],
          ["media.association_updated", media.update(f.lamp.id, f.photo.id, { alt: "Lit" })],
          ["media.detached", media.detach(f.lamp.id, f.photo.id)],
          ["media.deleted", media.remove(f.photo.id)],
          ["content_page.created", pages.create({ familyId: f.pageFamily.id, title: "Terms" })],
          ["content_page.updated", pages.update(f.page.id, { title: "About us" })],
          ["content_page.deleted", pages.remove(f.page.id)],
          ["modifier.created", modifiers.create({ code: "gift", name: "Gift", type: "text" })],
          ["modifier.updated", modifiers.update(f.engraving.id, { name: "Etching" })],
          ["modifier.deleted", modifiers.remove(f.engraving.id)],
          ["product_modifier.attached", productModifiers.attach(f.lamp.id, f.wrapping.id)],
          ["product_modifier.detached", productModifiers.detach(f.lamp.id, f.engraving.id)],
          ["product_relationship.created", relationships.create(f.shade.id, { relatedProductId: f.lamp.id, type: "accessory" })],
          ["product_relationship.deleted", relationships.remove(f.lamp.id, f.relationship.id)],
          ["connector.created", connectors.install({ type: "headless", name: "Other", config: { destination_url: "http://127.0.0.1:9/other", secret: "whsec-0123456789abcdef0123456789abcdef", extra_headers: {} } })],
          ["connector.updated", connectors.update(f.connector.id, { name: "Shop 2" })],
          ["connector.deleted", connectors.remove(f.connector.id)],
          ["webhook.test", connectors.sendTest(f.connector.id)],
          ["api_key.created", keys.create({ name: "deploy" })],
          ["api_key.created", keys.mint(organization.id, "bootstrap")],
          ["api_key.updated", keys.rename(f.key.id, { name: "ci-2" })],
          ["api_key.revoked", keys.revoke(f.key.id)],
          ["organization.updated", organizations.updateCurrent({ name: "Renamed" })],
          ["organization.deleted", organizations.delete(organization.id, organization.slug)]
        ]

        const before = yield* rowsOf(organization.id)
        const outcomes: Array<{ readonly event: string; readonly appended: ReadonlyArray<string>; readonly crashed: boolean; readonly unchanged: boolean }> = []
        let rows = JSON.stringify(before)
        for (const [event, write] of writes) {
          const appended: Array<string> = []
          const exit = yield* Effect.exit(as(Effect.locally(write, crashing, appended)))
          const crashed = Exit.isFailure(exit) && Cause.squash(exit.cause) instanceof CrashAfterAppend
          const after = JSON.stringify(yield* rowsOf(organization.id))
          outcomes.push({ event, appended, crashed, unchanged: after === rows })
          rows = after
        }
        expect(outcomes).toEqual(writes.map(([event]) => ({ event, appended: expect.arrayContaining([event]), crashed: true, unchanged: true })))

        // A new organization is recorded with its first event, or not at all.
        const slug = `${organization.slug}-new`
        const created = yield* Effect.exit(Effect.locally(organizations.create({ name: "New", slug }, { _tag: "Service" }), crashing, []))
        expect(Exit.isFailure(created) && Cause.squash(created.cause) instanceof CrashAfterAppend).toBe(true)
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        expect(yield* uow.system(sql`select id from organizations where slug = ${slug}`).pipe(Effect.orDie)).toEqual([])

        // Unarmed, the same writes go through: the crash above was the only thing in their way.
        yield* as(products.update(f.lamp.id, { name: "Floor lamp" }))
        expect(JSON.stringify(yield* rowsOf(organization.id))).not.toBe(JSON.stringify(before))
      }))
  })
