import type { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, type Layer } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { AuditLog } from "../../core/events/AuditLog.js"
import { Products } from "../../core/products/Products.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Variant } from "../../core/variants/Variant.js"
import { VariantRepository } from "../../core/variants/VariantRepository.js"
import { Variants } from "../../core/variants/Variants.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { eventsOf } from "../support/CatalogFixtures.js"
import { attr, entry, familyWith } from "../support/Families.js"

const failsWith = (exit: Exit.Exit<unknown, unknown>, tag: string) => {
  assert(Exit.isFailure(exit))
  expect(JSON.stringify(exit.cause)).toContain(tag)
}

/** "ok", the tag of the one failure, or the whole cause (a defect, an interruption). */
const outcomeOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isSuccess(exit) ? "ok" : Cause.isFailType(exit.cause) ? exit.cause.error._tag : Cause.pretty(exit.cause)

const page = { limit: 50, offset: 0 }

/** Variants against one storage adapter. */
export const variantsSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("places a variant without a position after the last, and at the last when that is the largest position", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        yield* as(variants.create(shirt.id, { sku: "LAST-1", position: 2147483646 }))
        expect((yield* as(variants.create(shirt.id, { sku: "LAST-2" }))).position).toBe(2147483647)
        expect((yield* as(variants.create(shirt.id, { sku: "LAST-3" }))).position).toBe(2147483647)
        const listed = yield* as(variants.list(shirt.id, page))
        expect(listed.data.map((v) => v.sku)).toEqual(["LAST-1", "LAST-2", "LAST-3"])
      }))

    it.effect("gives variants created on one product at the same time one position each, in a row", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        const created = yield* Effect.all(
          Array.from({ length: 6 }, (_, i) => as(variants.create(shirt.id, { sku: `RACE-${i}` }))),
          { concurrency: "unbounded" }
        )
        expect(created.map((v) => v.position).sort()).toEqual([0, 1, 2, 3, 4, 5])
        const listed = yield* as(variants.list(shirt.id, page))
        expect(listed.data.map((v) => v.position)).toEqual([0, 1, 2, 3, 4, 5])
      }))

    it.effect("creates, lists, patches and deletes variants; SKUs are unique per organization", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const variants = yield* Variants
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("colour")])
        const shirt = yield* as(products.create({ familyId: family.id, name: "Shirt" }))
        const sock = yield* as(products.create({ familyId: family.id, name: "Sock" }))

        const small = yield* as(variants.create(shirt.id, { sku: "SHIRT-S", name: "Small", attributes: { colour: entry("red") } }))
        expect(small).toMatchObject({ productId: shirt.id, sku: "SHIRT-S", name: "Small", status: "draft", position: 0, attributes: { colour: entry("red") } })
        const large = yield* as(variants.create(shirt.id, { sku: "SHIRT-L" }))
        expect(large).toMatchObject({ name: "SHIRT-L", position: 1 })
        failsWith(yield* Effect.exit(as(variants.create(sock.id, { sku: "SHIRT-S" }))), "Conflict")
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, large.id, { sku: "SHIRT-S" }))), "Conflict")
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "X", attributes: { nope: entry(1) } }))), "unknown_attribute")
        // Another organization may use the SKU, and sees neither the product nor its variants.
        const theirFamily = yield* familyWith(other.tenant, "product", [])
        const theirs = yield* Effect.provideService(products.create({ familyId: theirFamily.id, name: "Theirs" }), CurrentTenant, other.tenant)
        yield* Effect.provideService(variants.create(theirs.id, { sku: "SHIRT-S" }), CurrentTenant, other.tenant)
        failsWith(yield* Effect.exit(Effect.provideService(variants.list(shirt.id, page), CurrentTenant, other.tenant)), "NotFound")
        // A variant is found only under its own product.
        failsWith(yield* Effect.exit(as(variants.get(sock.id, small.id))), "NotFound")

        const listed = yield* as(variants.list(shirt.id, page))
        expect(listed.data.map((v) => v.id)).toEqual([small.id, large.id])
        const first = yield* as(variants.list(shirt.id, { limit: 1, offset: 1 }))
        expect({ ids: first.data.map((v) => v.id), hasMore: first.hasMore }).toEqual({ ids: [large.id], hasMore: false })

        const moved = yield* as(variants.update(shirt.id, large.id, { position: 0, status: "active", attributes: { colour: entry("blue") } }))
        expect(moved).toMatchObject({ position: 0, status: "active", attributes: { colour: entry("blue") } })
        yield* as(variants.remove(shirt.id, small.id))
        failsWith(yield* Effect.exit(as(variants.get(shirt.id, small.id))), "NotFound")
        const audit = yield* as((yield* AuditLog).list({ entityType: "variant", limit: 10, offset: 0 }))
        expect(audit.data.map((e) => [e.name, e.payload])).toEqual([
          ["variant.deleted", { productId: shirt.id, sku: "SHIRT-S" }],
          ["variant.updated", { productId: shirt.id, changed_fields: ["status", "position", "attributes", "attributes.colour"] }],
          ["variant.created", { productId: shirt.id, sku: "SHIRT-L" }],
          ["variant.created", { productId: shirt.id, sku: "SHIRT-S" }]
        ])
        // The product's deletion takes its variants; their SKUs are free again.
        yield* as(products.delete(shirt.id))
        expect((yield* as(variants.create(sock.id, { sku: "SHIRT-L" }))).sku).toBe("SHIRT-L")
      }))

    it.effect("keeps every one of concurrent patches of one variant, each merged into what the others wrote", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const codes = ["colour", "fabric", "fit", "care"]
        const family = yield* familyWith(tenant, "product", codes.map((code) => attr(code)))
        const shirt = yield* as(products.create({ familyId: family.id, name: "Shirt" }))
        for (let round = 0; round < 3; round++) {
          const v = yield* as(variants.create(shirt.id, { sku: `SHIRT-${round}` }))
          yield* Effect.all(codes.map((code) => as(variants.update(shirt.id, v.id, { attributes: { [code]: entry(code) } }))), {
            concurrency: "unbounded"
          })
          expect(Object.keys((yield* as(variants.get(shirt.id, v.id))).attributes).sort()).toEqual([...codes].sort())
        }
      }))

    it.effect("answers variant writes racing their product's deletion with NotFound or as done before it", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("colour")])
        const outcomes: Array<string> = []
        for (let round = 0; round < 8; round++) {
          const shirt = yield* as(products.create({ familyId: family.id, name: `Shirt ${round}` }))
          const creates = Array.from({ length: 6 }, (_, i) => as(variants.create(shirt.id, { sku: `R${round}-${i}` })))
          const exits = yield* Effect.all([...creates.map(Effect.exit), Effect.exit(as(products.delete(shirt.id)))], { concurrency: "unbounded" })
          for (const exit of exits) {
            outcomes.push(outcomeOf(exit))
          }
        }
        for (const outcome of outcomes) expect(["ok", "NotFound"]).toContain(outcome)
        // Whatever was created before the deletion went with it: every SKU is free again.
        const other = yield* as(products.create({ familyId: family.id, name: "Other" }))
        for (let i = 0; i < 6; i++) expect((yield* as(variants.create(other.id, { sku: `R0-${i}` }))).sku).toBe(`R0-${i}`)
      }))

    it.effect("requires every variant axis and keeps each combination unique within the product", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const products = yield* Products
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [
          attr("size", { type: "select", isVariantAxis: true, validation: { options: ["S", "M"] } }),
          attr("colour", { isVariantAxis: true }),
          attr("note")
        ])
        const shirt = yield* as(products.create({ familyId: family.id, name: "Shirt" }))
        const sock = yield* as(products.create({ familyId: family.id, name: "Sock" }))
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "A", attributes: { size: entry("S") } }))), "variant_axis_missing")
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "A", attributes: { size: entry("XL"), colour: entry("red") } }))), "ValidationFailed")
        const sRed = yield* as(variants.create(shirt.id, { sku: "A", attributes: { size: entry("S"), colour: entry("red") } }))
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "B", attributes: { colour: entry("red"), size: entry("S"), note: entry("x") } }))), "Conflict")
        const mRed = yield* as(variants.create(shirt.id, { sku: "B", attributes: { size: entry("M"), colour: entry("red") } }))
        // The same combination on another product is fine.
        yield* as(variants.create(sock.id, { sku: "C", attributes: { size: entry("S"), colour: entry("red") } }))
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, mRed.id, { attributes: { size: entry("S") } }))), "Conflict")
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, mRed.id, { attributes: { colour: entry(null) } }))), "variant_axis_missing")
        expect((yield* as(variants.update(shirt.id, sRed.id, { attributes: { colour: entry("blue") } }))).attributes.colour).toEqual(entry("blue"))
        expect((yield* as(variants.update(shirt.id, mRed.id, { attributes: { size: entry("S") } }))).attributes.size).toEqual(entry("S"))

        const colour = (yield* as((yield* Attributes).list("product"))).find((a) => a.code === "colour")
        assert(colour !== undefined)
        expect(yield* as((yield* Attributes).usage(colour.id))).toMatchObject({ products: 0, variants: 3, total: 3 })
      }))

    it.effect("compares a combination with the axes as they are now, after an axis was deleted and made again under its code", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const attributes = yield* Attributes
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("size", { isVariantAxis: true }), attr("colour", { isVariantAxis: true })])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        yield* as(variants.create(shirt.id, { sku: "OLD", attributes: { size: entry("M"), colour: entry("red") } }))
        const colour = (yield* as(attributes.list("product"))).find((a) => a.code === "colour")
        assert(colour !== undefined)
        yield* as(attributes.delete(colour.id))
        const again = yield* as(attributes.create(attr("colour", { isVariantAxis: true })))
        yield* as((yield* Families).attach(family.id, { attributeId: again.id }))
        // OLD lost its colour with the first attribute: red and M is a new combination.
        const fresh = yield* as(variants.create(shirt.id, { sku: "NEW", attributes: { size: entry("M"), colour: entry("red") } }))
        expect(fresh.attributes).toEqual({ size: entry("M"), colour: entry("red") })
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "DUP", attributes: { size: entry("M"), colour: entry("red") } }))), "Conflict")
      }))

    it.effect("takes back values unchanged since their attribute's validation narrowed, as a product does, and checks every other entry", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const attributes = yield* Attributes
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("fit", { type: "select", isLocalizable: true, validation: { options: ["slim", "loose"] } })])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        const made = yield* as(variants.create(shirt.id, { sku: "FIT-1", attributes: { fit: [{ locale: "en", channel: null, value: "loose" }] } }))
        const fit = (yield* as(attributes.list("product"))).find((a) => a.code === "fit")
        assert(fit !== undefined)
        yield* as(attributes.update(fit.id, { validation: { options: ["slim"] } }))
        const sentBack = yield* as(variants.update(shirt.id, made.id, { name: "Loose", attributes: made.attributes }))
        expect([sentBack.name, sentBack.attributes]).toEqual(["Loose", { fit: [{ locale: "en", channel: null, value: "loose" }] }])
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, made.id, { attributes: { fit: [{ locale: "de", channel: null, value: "loose" }] } }))), "invalid_option")
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, made.id, { attributes: { fit: [{ locale: "en", channel: null, value: "wide" }] } }))), "invalid_option")
      }))

    it.effect("removes values of a detached attribute scope by scope, as a product does", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("finish", { isLocalizable: true })])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        const finish = [{ locale: "de", channel: null, value: "matt" }, { locale: "fr", channel: null, value: "mat" }]
        const made = yield* as(variants.create(shirt.id, { sku: "DETACHED-1", attributes: { finish } }))
        const attachment = (yield* as((yield* Families).get(family.id))).attributes[0]
        assert(attachment !== undefined)
        yield* as((yield* Families).detach(family.id, attachment.attributeId))
        const one = yield* as(variants.update(shirt.id, made.id, { attributes: { finish: [{ locale: "de", channel: null, value: null }] } }))
        expect(one.attributes).toEqual({ finish: [{ locale: "fr", channel: null, value: "mat" }] })
        const none = yield* as(variants.update(shirt.id, made.id, { attributes: { finish: [{ locale: "fr", channel: null, value: null }] } }))
        expect(none.attributes).toEqual({})
        // Writing a value under the code is still refused: the family no longer declares it.
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, made.id, { attributes: { finish: entry("gloss") } }))), "unknown_attribute")
      }))

    it.effect("renames variants whose family gained an axis after them, and checks the axis once their values are written", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("note")])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        const a = yield* as(variants.create(shirt.id, { sku: "LATER-A" }))
        const b = yield* as(variants.create(shirt.id, { sku: "LATER-B" }))
        const size = yield* as((yield* Attributes).create({ code: "size", label: { en: "Size" }, type: "text", isVariantAxis: true }))
        yield* as((yield* Families).attach(family.id, { attributeId: size.id }))
        expect((yield* as(variants.update(shirt.id, a.id, { name: "A" }))).name).toBe("A")
        expect((yield* as(variants.update(shirt.id, b.id, { name: "B" }))).name).toBe("B")
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, a.id, { attributes: { note: entry("x") } }))), "variant_axis_missing")
        yield* as(variants.update(shirt.id, a.id, { attributes: { size: entry("S") } }))
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, b.id, { attributes: { size: entry("S") } }))), "Conflict")
        expect((yield* as(variants.update(shirt.id, b.id, { attributes: { size: entry("M") } }))).attributes).toEqual({ size: entry("M") })
      }))

    it.effect("takes axis values that name the same value as one combination: a locale in any case, a decimal's zeros, a multiselect's order", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [
          attr("size", { isVariantAxis: true, isLocalizable: true }),
          attr("width", { type: "decimal", isVariantAxis: true }),
          attr("colours", { type: "multiselect", isVariantAxis: true }),
          attr("made", { type: "datetime", isVariantAxis: true })
        ])
        const shirt = yield* as((yield* Products).create({ familyId: family.id, name: "Shirt" }))
        const values = (locale: string, width: string, colours: ReadonlyArray<string>, made: string) => ({
          size: [{ locale, channel: null, value: "M" }],
          width: entry(width),
          colours: entry(colours),
          made: entry(made)
        })
        yield* as(variants.create(shirt.id, { sku: "EQ-1", attributes: values("en-US", "12.5", ["red", "blue"], "2024-01-01T10:00:00.5Z") }))
        for (const [sku, attributes] of [
          ["EQ-2", values("en-us", "12.5", ["red", "blue"], "2024-01-01T10:00:00.5Z")],
          ["EQ-3", values("en-US", "012.50", ["red", "blue"], "2024-01-01T10:00:00.5Z")],
          ["EQ-4", values("en-US", "12.5", ["blue", "red"], "2024-01-01T10:00:00.5Z")],
          ["EQ-5", values("en-US", "12.5", ["red", "blue"], "2024-01-01T12:00:00.500+02:00")]
        ] as const) failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku, attributes }))), "Conflict")
        // Values that differ still make combinations of their own.
        const other = yield* as(variants.create(shirt.id, { sku: "EQ-6", attributes: values("en-US", "12.51", ["red", "blue"], "2024-01-01T10:00:00.5Z") }))
        failsWith(yield* Effect.exit(as(variants.update(shirt.id, other.id, { attributes: { width: entry(12.5) } }))), "Conflict")
        yield* as(variants.create(shirt.id, { sku: "EQ-7", attributes: values("en-US", "-0.0", ["red"], "2024-01-01T10:00:00Z") }))
        failsWith(yield* Effect.exit(as(variants.create(shirt.id, { sku: "EQ-8", attributes: values("en-US", "0", ["red"], "2024-01-01T10:00Z") }))), "Conflict")
        // A combination is the entries with their scopes: "M" at a null locale is also read at `de`, where "M" at `en-US` is not.
        yield* as(variants.create(shirt.id, {
          sku: "EQ-9",
          attributes: { ...values("en-US", "12.5", ["red", "blue"], "2024-01-01T10:00:00.5Z"), size: [{ locale: null, channel: null, value: "M" }] }
        }))
      }))

    it.effect("takes axis values as the values they are, not as they were sent: a tags value in any order, a uuid in any case, a number however written", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [
          attr("labels", { type: "tags", isVariantAxis: true }),
          attr("maker", { type: "reference", isVariantAxis: true }),
          attr("weight", { type: "number", isVariantAxis: true }),
          attr("fit", { type: "select", isVariantAxis: true, validation: { options: [{ code: "slim" }, { code: "loose" }] } }),
          attr("lined", { type: "boolean", isVariantAxis: true })
        ])
        const coat = yield* as((yield* Products).create({ familyId: family.id, name: "Coat" }))
        const maker = "0192f5a8-9c3e-7000-8000-00000000000a"
        const values = (labels: ReadonlyArray<string>, makerId: string, weight: number) => ({
          labels: entry(labels),
          maker: entry(makerId),
          weight: entry(weight),
          fit: entry("slim"),
          lined: entry(true)
        })
        yield* as(variants.create(coat.id, { sku: "AS-1", attributes: values(["winter", "wool"], maker, 1.5) }))
        for (const [sku, attributes] of [
          ["AS-2", values(["wool", "winter"], maker, 1.5)],
          ["AS-3", values(["winter", "wool"], maker.toUpperCase(), 1.5)],
          ["AS-4", values(["winter", "wool"], maker, JSON.parse("1.50e0"))]
        ] as const) failsWith(yield* Effect.exit(as(variants.create(coat.id, { sku, attributes }))), "Conflict")
        // Another option or boolean is another combination.
        yield* as(variants.create(coat.id, { sku: "AS-5", attributes: { ...values(["winter", "wool"], maker, 1.5), fit: entry("loose") } }))
        const unlined = yield* as(variants.create(coat.id, { sku: "AS-6", attributes: { ...values(["winter", "wool"], maker, 1.5), lined: entry(false) } }))
        failsWith(yield* Effect.exit(as(variants.update(coat.id, unlined.id, { attributes: { lined: entry(true), labels: entry(["wool", "winter"]) } }))), "Conflict")
      }))

    it.effect("keeps combinations of long axis values unique, however long", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [attr("engraving", { isVariantAxis: true })])
        const ring = yield* as((yield* Products).create({ familyId: family.id, name: "Ring" }))
        // Varied text, so that Postgres cannot compress the key below its index's limit.
        const long = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join("")
        yield* as(variants.create(ring.id, { sku: "R-1", attributes: { engraving: entry(long) } }))
        yield* as(variants.create(ring.id, { sku: "R-2", attributes: { engraving: entry(`${long}!`) } }))
        failsWith(yield* Effect.exit(as(variants.create(ring.id, { sku: "R-3", attributes: { engraving: entry(long) } }))), "Conflict")
        expect((yield* as(variants.list(ring.id, page))).data.map((v) => v.sku)).toEqual(["R-1", "R-2"])
      }))

    it.effect("names the SKU or the axis combination that the database found taken, whichever it was", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const repo = yield* VariantRepository
        const uow = yield* UnitOfWork
        const family = yield* familyWith(tenant, "product", [])
        const shirt = yield* Effect.provideService((yield* Products).create({ familyId: family.id, name: "Shirt" }), CurrentTenant, tenant)
        const at = new Date().toISOString()
        const variant = (sku: string) =>
          new Variant({ id: crypto.randomUUID(), organizationId: organization.id, productId: shirt.id, sku, name: sku, status: "draft", attributes: {}, position: 0, createdAt: at, updatedAt: at })
        // Written straight to the database, as a write that raced another past the use case's checks meets it.
        const insert = (sku: string, axisKey: string) => uow.tenant(organization.id, repo.insert({ variant: variant(sku), axisKey }))
        yield* insert("SHIRT-S", "small")
        expect((yield* Effect.flip(insert("SHIRT-S", "medium"))).message).toBe("sku SHIRT-S is taken")
        expect((yield* Effect.flip(insert("SHIRT-M", "small"))).message).toBe(`another variant of product ${shirt.id} has the same variant axis values`)
      }))

    it.effect("refuses a variant PATCH or DELETE that its product's deletion, alone or in bulk, overtook, recording nothing after it", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const products = yield* Products
        const variants = yield* Variants
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const family = yield* familyWith(tenant, "product", [])
        for (let round = 0; round < 12; round++) {
          const lamp = yield* as(products.create({ familyId: family.id, name: `Lamp ${round}` }))
          const [a, b] = [yield* as(variants.create(lamp.id, { sku: `A-${round}` })), yield* as(variants.create(lamp.id, { sku: `B-${round}` }))]
          const deletion = round % 2 === 0 ? products.delete(lamp.id) : products.bulk([{ op: "delete", id: lamp.id }])
          const [, patched, removed] = yield* Effect.all([
            Effect.exit(as(deletion)),
            Effect.exit(as(variants.update(lamp.id, a!.id, { name: "Renamed" }))),
            Effect.exit(as(variants.remove(lamp.id, b!.id)))
          ], { concurrency: "unbounded" })
          const events = (yield* eventsOf(organization.id)).filter((e) => e.entityId === lamp.id || (e.payload as { productId?: string }).productId === lamp.id)
          const names = events.map((e) => e.name)
          // What answered went in before the product's deletion; what came after it found nothing.
          expect(names.slice(names.indexOf("product.deleted") + 1)).toEqual([])
          expect(names.filter((n) => n === "variant.updated")).toHaveLength(Exit.isSuccess(patched) ? 1 : 0)
          expect(names.filter((n) => n === "variant.deleted")).toHaveLength(Exit.isSuccess(removed) ? 1 : 0)
          for (const exit of [patched, removed] as ReadonlyArray<Exit.Exit<unknown, unknown>>) if (Exit.isFailure(exit)) failsWith(exit, "NotFound")
        }
      }))
  })
