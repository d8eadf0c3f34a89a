import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { AuditLog } from "../../core/events/AuditLog.js"
import { Modifiers } from "../../core/modifiers/Modifiers.js"
import { ProductModifiers } from "../../core/modifiers/ProductModifiers.js"
import { Products } from "../../core/products/Products.js"
import { Relationships } from "../../core/relationships/Relationships.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { eventCount, eventsOf, ONE_DELETION, raced } from "../support/CatalogFixtures.js"
import { familyWith } from "../support/Families.js"

const failsWith = (exit: Exit.Exit<unknown, unknown>, tag: string) => {
  assert(Exit.isFailure(exit))
  expect(JSON.stringify(exit.cause)).toContain(tag)
}

/** Related products and attached modifiers against one storage adapter. */
export const productLinksSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("pages a product's links oldest first, the same links however the pages cut them", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const relationships = yield* Relationships
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const [a, ...others] = yield* as(Effect.all(["A", "B", "C", "D"].map((name) => products.create({ familyId: family.id, name }))))
        assert(a !== undefined)
        const links = yield* as(Effect.forEach(others.flatMap((o) => (["related", "upsell"] as const).map((type) => ({ relatedProductId: o.id, type }))), (input) =>
          relationships.create(a.id, input)))
        const ids = links.map((l) => l.id)
        expect((yield* as(relationships.list(a.id))).map((r) => r.id)).toEqual(ids)
        const pages = yield* as(Effect.forEach([0, 4], (offset) => relationships.list(a.id, { limit: 4, offset })))
        expect(pages.map((page) => page.map((r) => r.id))).toEqual([ids.slice(0, 4), ids.slice(4)])
        expect((yield* as(relationships.list(a.id, { offset: 5 }))).map((r) => r.id)).toEqual(ids.slice(5))
        expect(yield* as(relationships.list(a.id, { limit: 3, offset: 6 }))).toHaveLength(0)
      }))

    it.effect("links products of the organization once per type, lists and removes links, and drops them with either product", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const relationships = yield* Relationships
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const [a, b, c] = yield* as(Effect.all(["A", "B", "C"].map((name) => products.create({ familyId: family.id, name }))))
        assert(a !== undefined && b !== undefined && c !== undefined)
        const theirFamily = yield* familyWith(other.tenant, "product", [])
        const theirs = yield* Effect.provideService(products.create({ familyId: theirFamily.id, name: "T" }), CurrentTenant, other.tenant)

        const upsell = yield* as(relationships.create(a.id, { relatedProductId: b.id, type: "upsell" }))
        expect(upsell).toMatchObject({ productId: a.id, relatedProductId: b.id, type: "upsell" })
        const related = yield* as(relationships.create(a.id, { relatedProductId: b.id, type: "related" }))
        const accessory = yield* as(relationships.create(a.id, { relatedProductId: c.id, type: "accessory" }))
        const twice = yield* Effect.exit(as(relationships.create(a.id, { relatedProductId: b.id, type: "upsell" })))
        failsWith(twice, "Conflict")
        failsWith(twice, `product ${a.id} already links to ${b.id} as upsell`)
        failsWith(yield* Effect.exit(as(relationships.create(a.id, { relatedProductId: a.id, type: "related" }))), "self_relationship")
        failsWith(yield* Effect.exit(as(relationships.create(a.id, { relatedProductId: theirs.id, type: "related" }))), "NotFound")
        failsWith(yield* Effect.exit(Effect.provideService(relationships.list(a.id), CurrentTenant, other.tenant)), "NotFound")
        expect((yield* as(relationships.list(a.id))).map((r) => r.id)).toEqual([upsell.id, related.id, accessory.id])
        expect(yield* as(relationships.list(b.id))).toEqual([])

        // Only under its own product.
        failsWith(yield* Effect.exit(as(relationships.remove(b.id, upsell.id))), "NotFound")
        yield* as(relationships.remove(a.id, upsell.id))
        failsWith(yield* Effect.exit(as(relationships.remove(a.id, upsell.id))), "NotFound")
        yield* as(products.delete(c.id))
        expect((yield* as(relationships.list(a.id))).map((r) => r.id)).toEqual([related.id])

        const audit = yield* as((yield* AuditLog).list({ entityType: "product_relationship", limit: 10, offset: 0 }))
        expect(audit.data.map((e) => e.name)).toEqual([
          "product_relationship.deleted",
          "product_relationship.created",
          "product_relationship.created",
          "product_relationship.created"
        ])
        expect(audit.data[0]?.payload).toEqual({ productId: a.id, relatedProductId: b.id, type: "upsell" })
      }))

    it.effect("attaches a modifier once, lists and detaches it, and drops the link with the modifier or the product", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const attached = yield* ProductModifiers
        const modifiers = yield* Modifiers
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const mug = yield* as(products.create({ familyId: family.id, name: "Mug" }))
        const engraving = yield* as(modifiers.create({ code: "engraving", name: "Engraving", type: "text" }))
        const box = yield* as(modifiers.create({ code: "box", name: "Gift box", type: "select", options: [{ value: "small" }] }))
        const theirs = yield* Effect.provideService(modifiers.create({ code: "x", name: "X", type: "text" }), CurrentTenant, other.tenant)

        const link = yield* as(attached.attach(mug.id, engraving.id))
        expect(link).toMatchObject({ id: engraving.id, modifierId: engraving.id, productId: mug.id, code: "engraving", type: "text" })
        failsWith(yield* Effect.exit(as(attached.attach(mug.id, engraving.id))), "Conflict")
        failsWith(yield* Effect.exit(as(attached.attach(mug.id, theirs.id))), "NotFound")
        yield* as(attached.attach(mug.id, box.id))
        expect((yield* as(attached.list(mug.id))).map((m) => [m.code, m.options.length])).toEqual([["engraving", 0], ["box", 1]])

        yield* as(attached.detach(mug.id, engraving.id))
        failsWith(yield* Effect.exit(as(attached.detach(mug.id, engraving.id))), "NotFound")
        yield* as(modifiers.remove(box.id))
        expect(yield* as(attached.list(mug.id))).toEqual([])
        yield* as(attached.attach(mug.id, engraving.id))
        yield* as(products.delete(mug.id))
        failsWith(yield* Effect.exit(as(attached.list(mug.id))), "NotFound")

        const audit = yield* as((yield* AuditLog).list({ entityType: "product_modifier", entityId: mug.id, limit: 10, offset: 0 }))
        expect(audit.data.map((e) => e.name)).toEqual([
          "product_modifier.attached",
          "product_modifier.detached",
          "product_modifier.attached",
          "product_modifier.attached"
        ])
        expect(audit.data[1]?.payload).toEqual({ productId: mug.id, modifierId: engraving.id, code: "engraving" })
      }))

    it.effect("lists modifiers attached to one product at the same time in the order they were attached", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const attached = yield* ProductModifiers
        const modifiers = yield* Modifiers
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const options = yield* as(Effect.all(Array.from({ length: 8 }, (_, i) => modifiers.create({ code: `option_${i}`, name: `Option ${i}`, type: "text" }))))
        for (let round = 0; round < 4; round++) {
          const mug = yield* as((yield* Products).create({ familyId: family.id, name: `Mug ${round}` }))
          yield* Effect.all(options.map((m) => as(attached.attach(mug.id, m.id))), { concurrency: "unbounded", discard: true })
          const listed = (yield* as(attached.list(mug.id))).map((m) => m.modifierId)
          const events = (yield* eventsOf(organization.id))
            .filter((e) => e.name === "product_modifier.attached" && e.entityId === mug.id)
            .map((e) => (e.payload as { readonly modifierId: string }).modifierId)
          expect(listed).toEqual(events)
        }
      }))

    it.effect("removes a link once under concurrent removals: one succeeds and records it, the others find nothing", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const relationships = yield* Relationships
        const attached = yield* ProductModifiers
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const [a, b] = yield* as(Effect.all(["A", "B"].map((name) => products.create({ familyId: family.id, name }))))
        assert(a !== undefined && b !== undefined)
        const link = yield* as(relationships.create(a.id, { relatedProductId: b.id, type: "upsell" }))
        expect(yield* raced(as(relationships.remove(a.id, link.id)))).toEqual(ONE_DELETION)
        expect(yield* eventCount(organization.id, "product_relationship.deleted")).toBe(1)

        const engraving = yield* as((yield* Modifiers).create({ code: "engraving", name: "Engraving", type: "text" }))
        expect(yield* raced(as(attached.attach(a.id, engraving.id)))).toEqual(["Conflict", "Conflict", "Conflict", "Conflict", "Conflict", "ok"])
        expect(yield* raced(as(attached.detach(a.id, engraving.id)))).toEqual(ONE_DELETION)
        expect(yield* eventCount(organization.id, "product_modifier.attached")).toBe(1)
        expect(yield* eventCount(organization.id, "product_modifier.detached")).toBe(1)
      }))

    it.effect("refuses to delete a link that the deletion of the product it points at, alone or in bulk, took first", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const products = yield* Products
        const relationships = yield* Relationships
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const desk = yield* as(products.create({ familyId: family.id, name: "Desk" }))
        for (let round = 0; round < 12; round++) {
          const lamp = yield* as(products.create({ familyId: family.id, name: `Lamp ${round}` }))
          const link = yield* as(relationships.create(desk.id, { relatedProductId: lamp.id, type: "accessory" }))
          const deletion = round % 2 === 0 ? products.delete(lamp.id) : products.bulk([{ op: "delete", id: lamp.id }])
          const [, removed] = yield* Effect.all([Effect.exit(as(deletion)), Effect.exit(as(relationships.remove(desk.id, link.id)))], {
            concurrency: "unbounded"
          })
          const names = (yield* eventsOf(organization.id))
            .filter((e) => e.entityId === lamp.id || (e.payload as { relatedProductId?: string }).relatedProductId === lamp.id)
            .map((e) => e.name)
          // A removal that answered went in before the deletion; one after it found nothing to remove.
          expect(names.slice(names.indexOf("product.deleted") + 1)).toEqual([])
          expect(names.filter((n) => n === "product_relationship.deleted")).toHaveLength(Exit.isSuccess(removed) ? 1 : 0)
          if (Exit.isFailure(removed)) failsWith(removed, "NotFound")
        }
      }))
  })
