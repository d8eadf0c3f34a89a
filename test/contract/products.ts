import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, type Layer, Option, Schema } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Categories } from "../../core/catalog/Categories.js"
import { UpdateProduct } from "../../core/products/Product.js"
import { Products } from "../../core/products/Products.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { ValidationFailed } from "../../core/shared/Errors.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { catalogOver } from "../support/Catalog.js"
import { eventsOf, failureOf, inTenant, named, schemaFixture, val } from "../support/CatalogFixtures.js"
import { steppingClock } from "../support/SteppingClock.js"

/** Products: writes, merges, activation, resolution and bulk, against one storage adapter. */
export const productsSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("creates a product with canonical tags and a slug from its name, and records product.created with it", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const created = yield* products.create({ familyId: family.id, name: "Café Crème Runner", tags: ["Summer Sale", "summer-sale", "!!!"] })
          const twin = yield* products.create({ familyId: family.id, name: "Café Crème Runner" })
          const clash = yield* failureOf(products.create({ familyId: family.id, name: "Other", slug: created.slug }))
          return { created, twin, clash }
        }))
        expect(result.created.slug).toBe("cafe-creme-runner")
        expect(result.created.tags).toEqual(["summer-sale"])
        expect(result.created.status).toBe("draft")
        expect(result.twin.slug).not.toBe(result.created.slug)
        expect(result.clash).toContain("Conflict")
        const events = yield* eventsOf(organizationId)
        expect(events.filter((e) => e.name === "product.created").map((e) => e.entityId)).toEqual([result.created.id, result.twin.id])
      }))

    it.effect("stamps an event with the instant of the write it announces, so updatedSince=<timestamp> finds the record", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family, blurb } = yield* schemaFixture
          const products = yield* Products
          const created = yield* products.create({ familyId: family.id, name: "Stamped", attributes: { blurb: val("warm") } })
          const updated = yield* products.update(created.id, { name: "Stamped again" })
          yield* Effect.flatMap(Attributes, (attributes) => attributes.delete(blurb.id))
          const afterDeletion = yield* products.get(created.id, {})
          return { created, updated, afterDeletion }
        }).pipe(Effect.withClock(steppingClock())))
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const rows = yield* uow.tenant(organizationId, sql`select name, created_at from events where organization_id = ${organizationId} order by seq`).pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String, createdAt: Schema.String })))),
          Effect.orDie
        )
        const at = (name: string) => rows.find((r) => r.name === name)?.createdAt
        expect(at("product.created")).toBe(result.created.updatedAt)
        expect(at("product.updated")).toBe(result.updated.updatedAt)
        expect(at("attribute.deleted")).toBe(result.afterDeletion.updatedAt)
        expect(result.afterDeletion.updatedAt > result.updated.updatedAt).toBe(true)
      }))

    it.effect("gives concurrent writes of one name distinct generated slugs, never a conflict", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const categories = yield* Categories
          const brands = yield* Brands
          const times = <A, Err, R>(n: number, f: () => Effect.Effect<A, Err, R>) =>
            Effect.all(Array.from({ length: n }, f), { concurrency: "unbounded" })
          const created = yield* times(8, () => products.create({ familyId: family.id, name: "Same Generated Name" }))
          const bulked = yield* times(4, () => products.bulk([{ op: "create", familyId: family.id, name: "Bulk Same" }]))
          const cats = yield* times(6, () => categories.create({ name: "Same Cat" }))
          // Brand names are unique, so six names that all make the slug `acme`.
          const brandsMade = yield* Effect.all(["Acme!", "Acme?", "Acme#", "Acme.", "Acme,", "Acme;"].map((name) => brands.create({ name })), {
            concurrency: "unbounded"
          })
          return { created, bulked, cats, brandsMade }
        }))
        const distinct = (slugs: ReadonlyArray<string>) => new Set(slugs).size
        expect(distinct(result.created.map((p) => p.slug))).toBe(8)
        expect(result.bulked.flat().map((r) => r.ok)).toEqual([true, true, true, true])
        expect(distinct(result.cats.map((c) => c.slug))).toBe(6)
        expect(distinct(result.brandsMade.map((b) => b.slug))).toBe(6)
        expect(result.created.map((p) => p.slug)).toContain("same-generated-name")
      }))

    it.effect("merges a patch per code and scope, removes entries sent with value null, and lists what changed", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const p = yield* products.create({
            familyId: family.id,
            name: "Boot",
            attributes: { blurb: val("warm"), price: val({ amount_cents: 1000, currency: "EUR" }) }
          })
          const patched = yield* products.update(p.id, { name: "Winter boot", attributes: { blurb: val(null), weight: val(2) } })
          const unchanged = yield* products.update(p.id, { name: "Winter boot" })
          // Sent again with its keys in another order: the same value (Postgres keeps jsonb keys in an order of its own).
          yield* products.update(p.id, { attributes: { price: val({ currency: "EUR", amount_cents: 1000 }), weight: val(2) } })
          return { p, patched, unchanged }
        }))
        expect(result.patched.attributes).toEqual({ price: val({ amount_cents: 1000, currency: "EUR" }), weight: val(2) })
        expect(result.unchanged.updatedAt).toBe(result.patched.updatedAt)
        const updates = (yield* eventsOf(organizationId)).filter((e) => e.name === "product.updated")
        // Each PATCH is a write and records its event; those that change nothing name no field.
        expect(updates.map((e) => e.payload)).toEqual([
          { changed_fields: ["name", "attributes", "attributes.blurb", "attributes.weight"] },
          { changed_fields: [] },
          { changed_fields: [] }
        ])
      }))

    it.effect("keeps every one of concurrent patches of one product, each merged into what the others wrote", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const patches = [
            { blurb: val("warm") },
            { weight: val(2) },
            { price: val({ amount_cents: 1000, currency: "EUR" }) },
            { size: val({ amount: 42, unit: "eu" }) }
          ]
          const rounds = []
          for (let round = 0; round < 3; round++) {
            const p = yield* products.create({ familyId: family.id, name: `Boot ${round}` })
            yield* Effect.all(patches.map((attributes) => products.update(p.id, { attributes })), { concurrency: "unbounded" })
            rounds.push(yield* products.get(p.id, {}))
          }
          return rounds
        }))
        for (const p of result) expect(Object.keys(p.attributes).sort()).toEqual(["blurb", "price", "size", "weight"])
        const changed = (yield* eventsOf(organizationId)).filter((e) => e.name === "product.updated").map((e) => e.payload)
        expect(changed).toHaveLength(12)
        for (const payload of changed) {
          const fields = (payload as { changed_fields: Array<string> }).changed_fields
          expect([fields.length, fields[0]]).toEqual([2, "attributes"])
        }
      }))

    it.effect("runs concurrent bulk batches over the same products in opposite orders, keeping every change", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const ids = yield* Effect.all(Array.from({ length: 20 }, (_, i) => named(family.id, `Lamp ${i}`)))
          const batch = (order: ReadonlyArray<string>, attributes: Record<string, ReturnType<typeof val>>) =>
            products.bulk(order.map((id) => ({ op: "update" as const, id, attributes })))
          const results = yield* Effect.all([
            batch(ids, { blurb: val("bright") }),
            batch([...ids].reverse(), { weight: val(3) }),
            batch(ids, { price: val({ amount_cents: 500, currency: "EUR" }) })
          ], { concurrency: "unbounded" })
          const after = yield* Effect.all(ids.map((id) => products.get(id, {})))
          return { results, after }
        }))
        for (const r of result.results) expect(r.map((item) => item.ok)).toEqual(Array.from({ length: 20 }, () => true))
        for (const p of result.after) expect(Object.keys(p.attributes).sort()).toEqual(["blurb", "price", "weight"])
      }))

    it.effect("refuses activation while a required attribute is unfilled, naming it, and allows it once filled", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const refusedAtBirth = yield* failureOf(products.create({ familyId: family.id, name: "X", status: "active" }))
          const p = yield* products.create({ familyId: family.id, name: "Y" })
          const refused = yield* failureOf(products.update(p.id, { status: "active" }))
          const still = yield* products.get(p.id, {})
          const active = yield* products.update(p.id, { status: "active", attributes: { weight: val(3) } })
          return { refusedAtBirth, refused, still, active }
        }))
        expect(result.refusedAtBirth).toContain("required_attribute_missing")
        expect(result.refused).toContain("\"weight\"")
        expect(result.still.status).toBe("draft")
        expect(result.active.status).toBe("active")
      }))

    it.effect("refuses activation while the value the default locale and channel read is empty, a filled null entry behind it", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          yield* (yield* Organizations).updateCurrent({ settings: { default_locale: "en", default_channel: "web" } })
          const headline = yield* (yield* Attributes).create({
            code: "headline", label: {}, type: "text", isLocalizable: true, isScopable: true, requirement: "required"
          })
          const families = yield* Families
          const family = yield* families.create({ code: "banners", label: {} })
          yield* families.attach(family.id, { attributeId: headline.id })
          const products = yield* Products
          const attributes = { headline: [{ locale: "en", channel: "web", value: " " }, { locale: null, channel: null, value: "Sale" }] }
          const refused = yield* failureOf(products.create({ familyId: family.id, name: "Banner", status: "active", attributes }))
          const p = yield* products.create({ familyId: family.id, name: "Banner", attributes })
          const read = yield* products.get(p.id, { locale: "en", channel: "web" })
          return { refused, read: read.resolvedAttributes }
        }))
        expect(result.read).toEqual({ headline: " " })
        expect(result.refused).toContain("required_attribute_missing")
      }))

    it.effect("names the unfilled required attributes next to the other issues of an activating update, as create does", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const unknownBrand = "00000000-0000-7000-8000-000000000001"
          const created = yield* failureOf(products.create({ familyId: family.id, name: "X", status: "active", brandId: unknownBrand }))
          const p = yield* products.create({ familyId: family.id, name: "Y" })
          const updated = yield* failureOf(products.update(p.id, { status: "active", brandId: unknownBrand }))
          const bulk = yield* products.bulk([{ op: "update", id: p.id, status: "active", categoryIds: [unknownBrand] }])
          return { created, updated, bulk }
        }))
        for (const failure of [result.created, result.updated]) {
          expect(failure).toContain("brandId")
          expect(failure).toContain("required_attribute_missing")
        }
        const item = result.bulk[0]!
        expect(item.ok ? [] : item.error._tag === "ValidationFailed" ? item.error.issues.map((i) => i.code) : [item.error._tag])
          .toContain("required_attribute_missing")
      }))

    it.effect("checks the required attributes only on a write that sets the status to active: other writes leave an active product active", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, weight } = yield* schemaFixture
          const families = yield* Families
          const products = yield* Products
          const bare = yield* families.create({ code: "bare", label: { en: "Bare" } })
          const p = yield* products.create({ familyId: family.id, name: "Boot", status: "active", attributes: { weight: val(3) } })
          const cleared = yield* products.update(p.id, { attributes: { weight: val(null) } })
          const refused = yield* failureOf(products.update(p.id, { status: "active" }))
          const q = yield* products.create({ familyId: bare.id, name: "Sock", status: "active" })
          const moved = yield* products.update(q.id, { familyId: family.id })
          const tightened = yield* families.updateAttachment(family.id, weight.id, { requirementOverride: "required" })
          const renamed = yield* products.update(q.id, { name: "Wool sock" })
          const archived = yield* products.update(q.id, { status: "archived" })
          const draft = yield* products.update(q.id, { status: "draft" })
          return { cleared, refused, moved, tightened, renamed, archived, draft }
        }))
        expect(result.cleared.status).toBe("active")
        expect(result.cleared.attributes).toEqual({})
        expect(result.refused).toContain("required_attribute_missing")
        expect([result.moved.status, result.renamed.status, result.archived.status, result.draft.status]).toEqual(["active", "active", "archived", "draft"])
        expect(result.tightened.requirementOverride).toBe("required")
      }))

    it.effect("takes back a product read whole that holds a value of a detached attribute, and refuses a change of that value", () =>
      Effect.gen(function*() {
        const { organizationId, result } = yield* inTenant(Effect.gen(function*() {
          const { family, blurb } = yield* schemaFixture
          const products = yield* Products
          const p = yield* products.create({ familyId: family.id, name: "Clog", attributes: { weight: val(2), blurb: val("Wooden") } })
          yield* (yield* Families).detach(family.id, blurb.id)
          const read: Record<string, unknown> = JSON.parse(yield* products.json(p.id))
          const whole = Schema.decodeUnknownSync(UpdateProduct)({ ...read, name: "Wooden clog" })
          const written = yield* products.update(p.id, whole)
          const changed = yield* failureOf(products.update(p.id, { attributes: { blurb: val("Oak") } }))
          return { written, changed, id: p.id }
        }))
        expect(result.written.name).toBe("Wooden clog")
        expect(result.written.attributes.blurb).toEqual(val("Wooden"))
        expect(result.changed).toContain("unknown_attribute")
        const events = yield* eventsOf(organizationId)
        expect(events.filter((e) => e.entityId === result.id && e.name === "product.updated").map((e) => e.payload))
          .toEqual([{ changed_fields: ["name"] }])
      }))

    it.effect("lists the kept values a family change refuses by code, whatever order the database keeps them in", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          const products = yield* Products
          const from = yield* families.create({ code: "with_both", label: {} })
          for (const code of ["zeta", "ab"]) {
            const made = yield* attributes.create({ code, label: {}, type: "text" })
            yield* families.attach(from.id, { attributeId: made.id })
          }
          const to = yield* families.create({ code: "with_neither", label: {} })
          const p = yield* products.create({ familyId: from.id, name: "Both", attributes: { zeta: val("z"), ab: val("a") } })
          const exit = yield* Effect.exit(products.update(p.id, { familyId: to.id }))
          return Exit.isFailure(exit) ? Cause.squash(exit.cause) : exit.value
        }))
        expect(result instanceof ValidationFailed ? result.issues.map((i) => i.path.join(".")) : result).toEqual(["attributes.ab", "attributes.zeta"])
      }))

    it.effect("resolves values for a locale and channel, falling back to the null entries", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          const title = yield* attributes.create({ code: "title", label: { en: "Title" }, type: "text", isLocalizable: true })
          const blurb = yield* attributes.create({ code: "blurb", label: { en: "Blurb" }, type: "text" })
          const family = yield* families.create({ code: "books", label: { en: "Books" } })
          yield* families.attach(family.id, { attributeId: title.id })
          yield* families.attach(family.id, { attributeId: blurb.id })
          const products = yield* Products
          const p = yield* products.create({
            familyId: family.id,
            name: "Book",
            attributes: {
              title: [{ locale: "de", channel: null, value: "Buch" }, { locale: null, channel: null, value: "Livre" }],
              blurb: val("plain")
            }
          })
          return {
            de: yield* products.get(p.id, { locale: "de" }),
            fr: yield* products.get(p.id, { locale: "fr" }),
            raw: yield* products.get(p.id, {})
          }
        }))
        expect(result.de.resolvedAttributes).toEqual({ title: "Buch", blurb: "plain" })
        expect(result.fr.resolvedAttributes).toEqual({ title: "Livre", blurb: "plain" })
        expect(result.raw.resolvedAttributes).toBeUndefined()
      }))

    it.effect("resolves a locale asked without a channel at the default channel, and a channel without a locale at the default locale", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          yield* (yield* Organizations).updateCurrent({ settings: { default_locale: "en", default_channel: "web" } })
          const headline = yield* attributes.create({ code: "headline", label: { en: "Headline" }, type: "text", isLocalizable: true, isScopable: true })
          const family = yield* families.create({ code: "posters", label: { en: "Posters" } })
          yield* families.attach(family.id, { attributeId: headline.id })
          const products = yield* Products
          const p = yield* products.create({
            familyId: family.id,
            name: "Poster",
            attributes: {
              headline: [
                { locale: "de", channel: "web", value: "Web-Titel" },
                { locale: "de", channel: null, value: "Titel" },
                { locale: "en", channel: "web", value: "Web title" }
              ]
            }
          })
          const resolved = (scope: { locale?: string; channel?: string }) =>
            Effect.map(products.get(p.id, scope), (d) => d.resolvedAttributes)
          return {
            de: yield* resolved({ locale: "de" }),
            web: yield* resolved({ channel: "web" }),
            deApp: yield* resolved({ locale: "de", channel: "app" }),
            fr: yield* resolved({ locale: "fr" })
          }
        }))
        expect(result).toEqual({
          de: { headline: "Web-Titel" },
          web: { headline: "Web title" },
          deApp: { headline: "Titel" },
          fr: { headline: null }
        })
      }))

    it.effect("takes a locale in any case as one locale: on write, merge, resolution, activation and family labels", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          yield* (yield* Organizations).updateCurrent({ settings: { default_locale: "en-US" } })
          const title = yield* attributes.create({ code: "title", label: { en: "Title" }, type: "text", isLocalizable: true, requirement: "required" })
          const family = yield* families.create({ code: "lamps", label: { "en-us": "Lamps (US)", "de-DE": "Lampen" } })
          yield* families.attach(family.id, { attributeId: title.id })
          const products = yield* Products
          const duplicate = yield* failureOf(products.create({
            familyId: family.id,
            name: "Lamp",
            attributes: { title: [{ locale: "en-US", channel: null, value: "a" }, { locale: "en-us", channel: null, value: "b" }] }
          }))
          const p = yield* products.create({
            familyId: family.id,
            name: "Lamp",
            attributes: { title: [{ locale: "en-us", channel: null, value: "Lamp" }, { locale: null, channel: null, value: "Lampe" }] }
          })
          const active = yield* products.update(p.id, { status: "active" })
          const merged = yield* products.update(p.id, { attributes: { title: [{ locale: "EN-US", channel: null, value: "Desk lamp" }] } })
          const resolved = (locale: string) => Effect.map(products.get(p.id, { locale }), (d) => d.resolvedAttributes)
          const label = (locale?: string) =>
            Effect.map(products.facets(locale === undefined ? {} : { locale }), (f) => f.families.find((x) => x.id === family.id)?.label)
          return {
            duplicate: duplicate.includes("duplicate_entry"),
            active: active.status,
            merged: merged.attributes,
            enUs: yield* resolved("en-us"),
            EnUs: yield* resolved("en-US"),
            fr: yield* resolved("fr"),
            labelDe: yield* label("de-de"),
            labelDefault: yield* label(),
            labelOwnKeysOnly: yield* label("constructor")
          }
        }))
        expect(result).toEqual({
          duplicate: true,
          active: "active",
          merged: { title: [{ locale: "EN-US", channel: null, value: "Desk lamp" }, { locale: null, channel: null, value: "Lampe" }] },
          enUs: { title: "Desk lamp" },
          EnUs: { title: "Desk lamp" },
          fr: { title: "Lampe" },
          labelDe: "Lampen",
          labelDefault: "Lamps (US)",
          labelOwnKeysOnly: "Lamps (US)"
        })
      }))

    it.effect("runs a bulk batch where each item stands alone, with one event per item that succeeded", () =>
      Effect.gen(function*() {
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const existing = yield* products.create({ familyId: family.id, name: "Existing", slug: "taken" })
          const results = yield* products.bulk([
            { op: "create", familyId: family.id, name: "Same name" },
            { op: "create", familyId: family.id, name: "Same name" },
            { op: "create", familyId: family.id },
            { op: "create", familyId: family.id, name: "Clash", slug: "taken" },
            { op: "update", id: existing.id, name: "Renamed" },
            { op: "update", id: existing.id, name: "Renamed" },
            { op: "delete", id: existing.id },
            { op: "update", id: existing.id, name: "Gone" },
            { op: "explode" }
          ])
          return { results, listed: yield* products.list({ familyId: family.id }) }
        }))
        expect(result.results.map((r) => r.ok)).toEqual([true, true, false, false, true, true, true, false, false])
        expect(result.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
        const errors = result.results.flatMap((r) => (r.ok ? [] : [r.error._tag]))
        expect(errors).toEqual(["ValidationFailed", "Conflict", "NotFound", "ValidationFailed"])
        const slugs = result.listed.data.map((p) => p.slug)
        expect(new Set(slugs).size).toBe(2)
        const events = (yield* eventsOf(organizationId)).filter((e) => e.name.startsWith("product."))
        // The second rename changes nothing, yet succeeded: its event names no field.
        expect(events.map((e) => [e.name, e.payload.changed_fields])).toEqual([
          ["product.created", undefined],
          ["product.created", undefined],
          ["product.created", undefined],
          ["product.updated", ["name"]],
          ["product.updated", []],
          ["product.deleted", undefined]
        ])
      }))

    it.effect("frees a slug for the later items of a bulk batch once an earlier item renames or deletes its product", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const gone = yield* products.create({ familyId: family.id, name: "Gone", slug: "reuse-me" })
          const renamed = yield* products.create({ familyId: family.id, name: "Renamed", slug: "swap-a" })
          const other = yield* products.create({ familyId: family.id, name: "Other", slug: "other" })
          const late = yield* products.create({ familyId: family.id, name: "Late", slug: "late" })
          const results = yield* products.bulk([
            { op: "delete", id: gone.id },
            { op: "create", familyId: family.id, name: "Heir", slug: "reuse-me" },
            { op: "update", id: renamed.id, slug: "swap-c" },
            { op: "update", id: other.id, slug: "swap-a" },
            { op: "create", familyId: family.id, name: "Too early", slug: "late" },
            { op: "delete", id: late.id },
            { op: "create", familyId: family.id, name: "Other" }
          ])
          const listed = yield* products.list({ familyId: family.id, sortBy: "slug" })
          return { results, slugs: listed.data.map((p) => `${p.name}:${p.slug}`) }
        }))
        expect(result.results.map((r) => (r.ok ? "ok" : r.error._tag))).toEqual(["ok", "ok", "ok", "ok", "Conflict", "ok", "ok"])
        expect(result.slugs).toEqual(["Other:other", "Heir:reuse-me", "Other:swap-a", "Renamed:swap-c"])
      }))

    it.effect("reads `constructor` as an attribute code like any other, and `toString` or `__proto__` as undeclared ones", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const attributes = yield* Attributes
          const families = yield* Families
          const products = yield* Products
          const code = yield* attributes.create({ code: "constructor", label: { en: "Maker" }, type: "text", requirement: "required" })
          const family = yield* families.create({ code: "made", label: { en: "Made" } })
          yield* families.attach(family.id, { attributeId: code.id })
          const draft = yield* products.create({ familyId: family.id, name: "Unmade" })
          const inactive = yield* failureOf(products.create({ familyId: family.id, name: "Active", status: "active" }))
          const active = yield* products.create({ familyId: family.id, name: "Made", status: "active", attributes: { constructor: val("Acme") } })
          const cleared = yield* products.update(active.id, { status: "draft", attributes: { constructor: val(null) } })
          const undeclared = yield* products.bulk(JSON.parse(`[
            {"op": "update", "id": "${draft.id}", "attributes": {"toString": [{"locale": null, "channel": null, "value": null}]}},
            {"op": "update", "id": "${draft.id}", "attributes": {"__proto__": [{"locale": null, "channel": null, "value": "x"}]}},
            {"op": "create", "familyId": "${family.id}", "name": "Bulk", "attributes": {"constructor": [{"locale": null, "channel": null, "value": "B"}]}}
          ]`))
          return { draft, inactive, active, cleared, undeclared }
        }))
        expect(result.draft.attributes).toEqual({})
        expect(result.inactive).toContain("required_attribute_missing")
        expect(result.active.attributes).toEqual({ constructor: val("Acme") })
        expect(result.cleared.attributes).toEqual({})
        const issues = result.undeclared.map((r) => (r.ok ? "ok" : r.error._tag === "ValidationFailed" ? r.error.issues.map((i) => `${i.path.join(".")} ${i.code}`) : r.error._tag))
        expect(issues).toEqual([["attributes.toString unknown_attribute"], ["attributes.__proto__ unknown_attribute"], "ok"])
      }))

    it.effect("stores names of 255 characters in any script, and refuses longer ones", () =>
      Effect.gen(function*() {
        // Varied characters of four bytes each, so that no database can compress them below its index's limit.
        const longest = Array.from({ length: 255 }, (_, i) => String.fromCodePoint(0x20000 + ((i * 7919) % 40000))).join("")
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const bulk = yield* products.bulk([
            { op: "create", familyId: family.id, name: longest },
            { op: "create", familyId: family.id, name: `${longest}x` }
          ])
          const category = yield* (yield* Categories).create({ name: longest })
          const brand = yield* (yield* Brands).create({ name: longest })
          const sorted = yield* products.list({ familyId: family.id, sortBy: "name" })
          return { bulk, category, brand, sorted }
        }))
        expect(result.bulk.map((r) => (r.ok ? "ok" : r.error._tag === "ValidationFailed" ? r.error.issues.map((i) => i.path.join(".")) : r.error._tag))).toEqual(["ok", ["name"]])
        expect(result.sorted.data.map((p) => p.name)).toEqual([longest])
        expect([result.category.name, result.brand.name]).toEqual([longest, longest])
      }))

    it.effect("deletes an attribute's stored values from products, and the family in use answers Conflict", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, price } = yield* schemaFixture
          const products = yield* Products
          const attributes = yield* Attributes
          const families = yield* Families
          const p = yield* products.create({ familyId: family.id, name: "Priced", attributes: { price: val({ amount_cents: 1, currency: "EUR" }) } })
          const usage = yield* attributes.usage(price.id)
          yield* attributes.delete(price.id)
          const familyDelete = yield* failureOf(families.delete(family.id))
          return { usage, after: yield* products.get(p.id, {}), familyDelete }
        }))
        expect(result.usage.products).toBe(1)
        expect(result.after.attributes).toEqual({})
        expect(result.familyDelete).toContain("Conflict")
      }))

    /**
     * A product write that has checked and stored its `blurb` (text: nothing else references
     * the attribute) holds its transaction open while `change` runs beside it. Answers whether
     * `change` finished before the write committed, and the product once both are done.
     */
    const againstHeldWrite = (change: (blurb: { readonly id: string }) => Effect.Effect<unknown, unknown, Attributes | CurrentTenant>) =>
      inTenant(Effect.gen(function*() {
        const { family, blurb } = yield* schemaFixture
        const products = yield* Products
        const uow = yield* UnitOfWork
        const { organizationId } = yield* CurrentTenant
        const stored = yield* Deferred.make<string>()
        const commit = yield* Deferred.make<void>()
        const writing = yield* Effect.fork(uow.tenant(organizationId, Effect.gen(function*() {
          const p = yield* products.create({ familyId: family.id, name: "Late", attributes: { blurb: val("written late") } })
          yield* Deferred.succeed(stored, p.id)
          yield* Deferred.await(commit)
        })))
        const id = yield* Deferred.await(stored)
        const changing = yield* Effect.fork(change(blurb))
        // Ample time for the change to finish, were it not held back by the write (real time:
        // the test clock would never move on its own).
        yield* Effect.sleep("300 millis").pipe(Effect.withClock(Clock.make()))
        const finishedFirst = Option.isSome(yield* Fiber.poll(changing))
        yield* Deferred.succeed(commit, undefined)
        yield* Fiber.join(writing)
        yield* Fiber.join(changing)
        return { finishedFirst, after: yield* products.get(id, {}) }
      }))

    it.effect("takes along the value of a write that checked the attribute before its deletion and commits after it", () =>
      Effect.gen(function*() {
        const { result } = yield* againstHeldWrite((blurb) => Effect.flatMap(Attributes, (a) => a.delete(blurb.id)))
        expect(result.finishedFirst).toBe(false)
        expect(result.after.attributes).toEqual({})
      }))

    it.effect("moves to the new code the value of a write that checked the old code before a rename and commits after it", () =>
      Effect.gen(function*() {
        const { result } = yield* againstHeldWrite((blurb) => Effect.flatMap(Attributes, (a) => a.update(blurb.id, { code: "story" })))
        expect(result.finishedFirst).toBe(false)
        expect(result.after.attributes).toEqual({ story: val("written late") })
      }))

    it.effect("keeps the values a narrowed validation would refuse: they read, sort and fill as before, and are taken back unchanged", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, weight } = yield* schemaFixture
          const products = yield* Products
          const attributes = yield* Attributes
          const heavy = yield* products.create({ familyId: family.id, name: "Heavy", attributes: { weight: val(500) } })
          const light = yield* products.create({ familyId: family.id, name: "Light", attributes: { weight: val(50) } })
          yield* attributes.update(weight.id, { validation: { max: 100 } })
          const renamed = yield* products.update(heavy.id, { name: "Heavy boot", status: "active" })
          const sentBack = yield* products.update(heavy.id, { name: "Heavy boots", attributes: renamed.attributes })
          const changed = yield* failureOf(products.update(heavy.id, { attributes: { weight: val(400) } }))
          const sorted = yield* products.list({ familyId: family.id, sortBy: "attribute", sortAttribute: "weight", sortDir: "desc" })
          const filtered = yield* products.list({ familyId: family.id, filterAttribute: "weight", filterMin: 400 })
          return { renamed, sentBack, changed, sorted: sorted.data.map((p) => p.id), filtered: filtered.data.map((p) => p.id), ids: [heavy.id, light.id] }
        }))
        expect(result.renamed.attributes).toEqual({ weight: val(500) })
        expect(result.renamed.status).toBe("active")
        expect(result.sentBack.name).toBe("Heavy boots")
        expect(result.sentBack.attributes).toEqual({ weight: val(500) })
        expect(result.changed).toContain("too_big")
        expect(result.sorted).toEqual(result.ids)
        expect(result.filtered).toEqual([result.ids[0]])
      }))

    it.effect("moves a product to another family declaring its attributes, though a narrowed validation would refuse a value it keeps", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family, weight } = yield* schemaFixture
          const products = yield* Products
          const families = yield* Families
          const boots = yield* families.create({ code: "boots", label: { en: "Boots" } })
          yield* families.attach(boots.id, { attributeId: weight.id })
          const heavy = yield* products.create({ familyId: family.id, name: "Heavy", attributes: { weight: val(500) } })
          yield* (yield* Attributes).update(weight.id, { validation: { max: 100 } })
          const moved = yield* products.update(heavy.id, { familyId: boots.id })
          const movedBack = yield* failureOf(products.update(heavy.id, { familyId: family.id, attributes: { weight: val(400) } }))
          return { moved, movedBack, boots: boots.id }
        }))
        expect([result.moved.familyId, result.moved.attributes]).toEqual([result.boots, { weight: val(500) }])
        expect(result.movedBack).toContain("too_big")
      }))

    it.effect("takes back entries unchanged since a narrowed maxLength or option list, alone and in bulk, and checks every other entry", () =>
      Effect.gen(function*() {
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          const products = yield* Products
          const attributes = yield* Attributes
          const families = yield* Families
          const motto = yield* attributes.create({ code: "motto", label: { en: "Motto" }, type: "text", isLocalizable: true })
          const colours = yield* attributes.create({ code: "colours", label: { en: "Colours" }, type: "multiselect", validation: { options: ["red", "teal"] } })
          for (const a of [motto, colours]) yield* families.attach(family.id, { attributeId: a.id })
          const values = {
            motto: [{ locale: "en", channel: null, value: "Run far" }],
            colours: val(["red", "teal"])
          }
          const p = yield* products.create({ familyId: family.id, name: "Runner", attributes: values })
          yield* attributes.update(motto.id, { validation: { maxLength: 3 } })
          yield* attributes.update(colours.id, { validation: { options: ["red"] } })
          const sentBack = yield* products.update(p.id, { name: "Runner 2", attributes: p.attributes })
          const bulk = yield* products.bulk([{ op: "update", id: p.id, name: "Runner 3", attributes: p.attributes }])
          const otherLocale = yield* failureOf(products.update(p.id, { attributes: { motto: [...values.motto, { locale: "de", channel: null, value: "Run far" }] } }))
          const changed = yield* failureOf(products.update(p.id, { attributes: { motto: [{ locale: "en", channel: null, value: "Run farther" }] } }))
          const reordered = yield* failureOf(products.update(p.id, { attributes: { colours: val(["teal", "red"]) } }))
          const after = yield* products.get(p.id, {})
          return { sentBack, bulk, otherLocale, changed, reordered, after }
        }))
        expect(result.sentBack.name).toBe("Runner 2")
        expect(result.sentBack.attributes).toEqual({ motto: [{ locale: "en", channel: null, value: "Run far" }], colours: val(["red", "teal"]) })
        expect(result.bulk.map((r) => r.ok)).toEqual([true])
        expect(result.otherLocale).toContain("too_big")
        expect(result.changed).toContain("too_big")
        expect(result.reordered).toContain("invalid_option")
        expect(result.after.name).toBe("Runner 3")
        expect(result.after.attributes).toEqual(result.sentBack.attributes)
      }))
  })
