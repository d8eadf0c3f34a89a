import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Schema } from "effect"
import { ATTRIBUTE_VALUE_TABLES, type AttributeValueTable } from "../../adapters/sql/AttributeValueTables.js"
import { JsonColumn, toJson } from "../../adapters/sql/Columns.js"
import { tenantTable } from "../../adapters/sql/Rls.js"
import * as SqlAttributeValueStore from "../../adapters/sql/SqlAttributeValueStore.js"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import type { CreateAttribute } from "../../core/schema/Attribute.js"
import { AttributeGroups } from "../../core/schema/AttributeGroups.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { AttributeValueStore } from "../../core/schema/AttributeValueStore.js"
import { Families } from "../../core/schema/Families.js"
import { FamilyRepository } from "../../core/schema/FamilyRepository.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { ValidationFailed } from "../../core/shared/Errors.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { OrganizationRepository } from "../../core/tenancy/OrganizationRepository.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { racedChanges } from "../support/CatalogFixtures.js"

// Tables of this suite standing in for the catalog tables to come: two hold product
// attribute values (like products and variants), one references families (like products).
const VALUED: ReadonlyArray<AttributeValueTable> = [
  { table: "test_valued_records", entityKind: "product", usageKey: "products" },
  { table: "test_valued_variants", entityKind: "product", usageKey: "variants" },
  { table: "test_valued_brands", entityKind: "brand", usageKey: "brands" }
]

const createTestTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  for (const { table } of VALUED) {
    yield* sql.unsafe(`CREATE TABLE ${table} (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      attributes ${json} NOT NULL,
      updated_at text NOT NULL
    )`)
    yield* tenantTable(table)
  }
  yield* sql.unsafe(`CREATE TABLE test_family_members (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    family_id uuid NOT NULL REFERENCES attribute_families (id) ON DELETE RESTRICT
  )`)
  yield* tenantTable("test_family_members")
}).pipe(Effect.orDie)

/** The storage with this suite's tables created and registered with the value store. */
const withTestTables = <E>(storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  Layer.mergeAll(SqlAttributeValueStore.layerWith([...ATTRIBUTE_VALUE_TABLES, ...VALUED]), Layer.effectDiscard(createTestTables)).pipe(
    Layer.provideMerge(storage)
  )

const Attrs = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const StoredRow = Schema.Struct({ id: Schema.String, attributes: JsonColumn(Attrs), updatedAt: Schema.String })
const EventRow = Schema.Struct({ name: Schema.String, entityId: Schema.String, payload: JsonColumn(Attrs) })

const inTenant = (tenant: typeof CurrentTenant.Service) => <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)

const failureTag = <A, E>(exit: Exit.Exit<A, E>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.failureOption(exit.cause)
  return Option.isSome(failure) && typeof failure.value === "object" && failure.value !== null && "_tag" in failure.value
    ? String(failure.value._tag)
    : "defect"
}

/** A refusal as `path code` of each issue, or the failure's tag when it is not a validation failure. */
const refusal = <A, E>(exit: Exit.Exit<A, E>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.failureOption(exit.cause)
  return Option.isSome(failure) && failure.value instanceof ValidationFailed
    ? failure.value.issues.map((i) => `${i.path.join(".")} ${i.code}`).join(", ")
    : failureTag(exit)
}

const eventsOf = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* (yield* UnitOfWork).tenant(organizationId, sql`select name, entity_id, payload from events where organization_id = ${organizationId} order by seq`)
    return yield* Schema.decodeUnknown(Schema.Array(EventRow))(rows)
  }).pipe(Effect.orDie)

const insertValued = (organizationId: string, table: string, attributes: Record<string, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = yield* (yield* Crypto).uuid
    yield* (yield* UnitOfWork).tenant(
      organizationId,
      sql`insert into ${sql(table)} ${sql.insert({ id, organizationId, attributes: toJson(attributes), updatedAt: "2000-01-01T00:00:00.000Z" })}`
    )
    return id
  }).pipe(Effect.orDie)

const storedRow = (organizationId: string, table: string, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* (yield* UnitOfWork).tenant(organizationId, sql`select id, attributes, updated_at from ${sql(table)} where id = ${id}`)
    const [row] = yield* Schema.decodeUnknown(Schema.Array(StoredRow))(rows)
    return row
  }).pipe(Effect.orDie)

const attr = (code: string, more: Partial<CreateAttribute> = {}): CreateAttribute => ({ code, label: { en: code }, type: "text", ...more })
const entry = (value: unknown) => [{ locale: null, channel: null, value }]

/** Attribute groups, attributes, families and attribute values against one storage adapter. */
export const schemaSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(withTestTables(storage)), { timeout: 60_000 })(name, (it) => {
    it.effect("creates and lists attribute groups, refusing a taken code", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const groups = yield* AttributeGroups
        const b = yield* inTenant(tenant)(groups.create({ code: "b_group", label: { en: "B" }, position: 1 }))
        const a = yield* inTenant(tenant)(groups.create({ code: "a_group", label: { en: "A" } }))
        expect(a).toMatchObject({ code: "a_group", position: 0, organizationId: organization.id })
        expect((yield* inTenant(tenant)(groups.list)).map((g) => g.id)).toEqual([a.id, b.id])
        expect(refusal(yield* Effect.exit(inTenant(tenant)(groups.create({ code: "a_group", label: {} }))))).toBe("code taken")
        expect((yield* eventsOf(organization.id)).filter((e) => e.name === "attribute_group.created").length).toBe(2)
      }))

    it.effect("fills every default on create and keeps requirement and isRequired consistent", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const plain = yield* run(attributes.create(attr("plain")))
        expect(plain).toMatchObject({
          entityKind: "product",
          groupId: null,
          isLocalizable: false,
          isScopable: false,
          requirement: "available",
          isRequired: false,
          isVariantAxis: false,
          validation: null,
          defaultValue: null,
          position: 0,
          createdBy: tenant.actor.id,
          updatedBy: tenant.actor.id
        })
        expect(yield* run(attributes.create(attr("legacy", { isRequired: true })))).toMatchObject({ requirement: "required", isRequired: true })
        expect(yield* run(attributes.create(attr("sugg", { requirement: "suggested" })))).toMatchObject({ requirement: "suggested", isRequired: false })
        const both = yield* Effect.exit(run(attributes.create(attr("both", { requirement: "suggested", isRequired: true }))))
        expect(failureTag(both)).toBe("ValidationFailed")

        const patched = yield* run(attributes.update(plain.id, { isRequired: true }))
        expect(patched).toMatchObject({ requirement: "required", isRequired: true })
        const back = yield* run(attributes.update(plain.id, { requirement: "suggested", label: { en: "Plain", de: "Schlicht" } }))
        expect(back).toMatchObject({ requirement: "suggested", isRequired: false, label: { en: "Plain", de: "Schlicht" } })
        expect(yield* run(attributes.get(plain.id))).toEqual(back)
      }))

    it.effect("refuses duplicate codes per entity kind, unknown groups, invalid defaults and a change of kind", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const a = yield* run(attributes.create(attr("color")))
        expect(refusal(yield* Effect.exit(run(attributes.create(attr("color")))))).toBe("code taken")
        const brandColor = yield* run(attributes.create(attr("color", { entityKind: "brand" })))
        expect(brandColor.entityKind).toBe("brand")
        expect((yield* run(attributes.list("brand"))).map((x) => x.id)).toEqual([brandColor.id])
        expect((yield* run(attributes.list("product"))).map((x) => x.id)).toEqual([a.id])

        const missingGroup = yield* Effect.exit(run(attributes.create(attr("grouped", { groupId: "0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b" }))))
        expect(failureTag(missingGroup)).toBe("ValidationFailed")
        const badDefault = yield* Effect.exit(run(attributes.create(attr("qty", { type: "number", defaultValue: "three" }))))
        expect(failureTag(badDefault)).toBe("ValidationFailed")
        expect((yield* run(attributes.create(attr("qty", { type: "number", defaultValue: 3 })))).defaultValue).toBe(3)
        expect((yield* run(attributes.create(attr("note", { defaultValue: "12" })))).defaultValue).toBe("12")
        // Kept as a value would be: a decimal as its digits, an id lower-case.
        const amount = yield* run(attributes.create(attr("amount", { type: "decimal", defaultValue: 1e23 })))
        expect(amount.defaultValue).toBe("100000000000000000000000")
        const upper = "ABCDEF00-0000-4000-8000-000000000000"
        const ref = yield* run(attributes.create(attr("ref", { type: "reference", defaultValue: upper })))
        expect(ref.defaultValue).toBe(upper.toLowerCase())
        expect((yield* run(attributes.update(amount.id, { defaultValue: 12.5 }))).defaultValue).toBe("12.5")
        expect((yield* run(attributes.get(ref.id))).defaultValue).toBe(upper.toLowerCase())

        expect(failureTag(yield* Effect.exit(run(attributes.update(a.id, { entityKind: "brand" }))))).toBe("ValidationFailed")
        expect((yield* run(attributes.update(a.id, { entityKind: "product", position: 4 }))).position).toBe(4)
        expect(refusal(yield* Effect.exit(run(attributes.update(a.id, { code: "qty" }))))).toBe("code taken")
        expect(failureTag(yield* Effect.exit(run(attributes.get("0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b"))))).toBe("NotFound")
      }))

    it.effect("attaches attributes to families with effective requirements, in position then code order", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const attributes = yield* Attributes
        const families = yield* Families
        const run = inTenant(tenant)
        const c = yield* run(attributes.create(attr("c_attr", { requirement: "required" })))
        const a = yield* run(attributes.create(attr("a_attr", { type: "number" })))
        const b = yield* run(attributes.create(attr("b_attr")))
        const page = yield* run(attributes.create(attr("page_attr", { entityKind: "content" })))
        const fam = yield* run(families.create({ code: "shoes", label: { en: "Shoes" } }))
        expect(fam).toMatchObject({ entityKind: "product", description: null })
        expect(refusal(yield* Effect.exit(run(families.create({ code: "shoes", label: {} }))))).toBe("code taken")

        expect(yield* run(families.attach(fam.id, { attributeId: c.id, position: 1 }))).toMatchObject({
          requirementOverride: null,
          isRequiredOverride: null,
          position: 1
        })
        yield* run(families.attach(fam.id, { attributeId: a.id, position: 2, isRequiredOverride: true }))
        yield* run(families.attach(fam.id, { attributeId: b.id, position: 1, requirementOverride: "suggested" }))
        expect(refusal(yield* Effect.exit(run(families.attach(fam.id, { attributeId: b.id }))))).toBe("attributeId already_attached")
        expect(failureTag(yield* Effect.exit(run(families.attach(fam.id, { attributeId: page.id }))))).toBe("ValidationFailed")
        expect(failureTag(yield* Effect.exit(run(families.attach(fam.id, { attributeId: "0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b" }))))).toBe("NotFound")

        const details = yield* run(families.get(fam.id))
        expect(details.attributes.map((e) => [e.code, e.requirement, e.requirementOverride, e.effectiveRequirement, e.effectiveIsRequired])).toEqual([
          ["b_attr", "available", "suggested", "suggested", false],
          ["c_attr", "required", null, "required", true],
          ["a_attr", "available", "required", "required", true]
        ])
        expect(details.attributes[2]).toMatchObject({ type: "number", isRequired: false, isRequiredOverride: true, familyId: fam.id })

        const patched = yield* run(families.updateAttachment(fam.id, c.id, { requirementOverride: "available", position: 9 }))
        expect(patched).toMatchObject({ requirementOverride: "available", isRequiredOverride: false, position: 9 })
        const schema = yield* (yield* UnitOfWork).tenant(tenant.organizationId, (yield* FamilyRepository).schemaOf(tenant.organizationId, fam.id))
        assert(Option.isSome(schema))
        expect(schema.value.attributes.map((x) => [x.code, x.effectiveRequirement, x.position])).toEqual([
          ["b_attr", "suggested", 1],
          ["a_attr", "required", 2],
          ["c_attr", "available", 9]
        ])

        yield* run(families.detach(fam.id, b.id))
        yield* run(families.detach(fam.id, b.id))
        expect((yield* run(families.get(fam.id))).attributes.map((e) => e.code)).toEqual(["a_attr", "c_attr"])
        expect(failureTag(yield* Effect.exit(run(families.updateAttachment(fam.id, b.id, { position: 1 }))))).toBe("NotFound")
        const names = (yield* eventsOf(tenant.organizationId)).map((e) => e.name)
        expect(names).toContain("family.created")
        expect(names.filter((n) => n === "family_attribute.created").length).toBe(3)
        expect(names).toContain("family_attribute.updated")
        expect(names.filter((n) => n === "family_attribute.deleted").length).toBe(1)
      }))

    it.effect("provisions the category schema once, also under concurrent first calls", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const families = yield* Families
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const lists = yield* Effect.all(Array.from({ length: 6 }, () => run(families.list("category"))), { concurrency: "unbounded" })
        const ids = new Set(lists.flat().map((f) => f.id))
        expect(ids.size).toBe(1)
        expect(lists.every((l) => l.length === 1)).toBe(true)
        const again = yield* run(families.list("category"))
        expect(again.map((f) => f.id)).toEqual([...ids])
        expect(again[0]).toMatchObject({ code: "category", entityKind: "category" })
        const described = yield* run(attributes.list("category"))
        expect(described.map((a) => a.code)).toEqual(["description"])
        const schema = yield* run(families.provisioned("category"))
        expect(schema.family.id).toBe(again[0]?.id)
        expect(schema.attributes.map((a) => a.code)).toEqual(["description"])
        expect((yield* run(families.list("product"))).length).toBe(0)
        const names = (yield* eventsOf(tenant.organizationId)).map((e) => e.name)
        expect(names.filter((n) => n === "family.created").length).toBe(1)
      }))

    it.effect("provisions the brand schema under its own code when a product family took the kind's name", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const families = yield* Families
        const run = inTenant(tenant)
        yield* run(families.create({ code: "brand", label: { en: "Brand products" } }))
        const concurrent = yield* Effect.all(Array.from({ length: 4 }, () => run(families.provisioned("brand"))), { concurrency: "unbounded" })
        expect(new Set(concurrent.map((s) => s.family.id)).size).toBe(1)
        expect(concurrent[0]?.family.code).toMatch(/^brand_/)
        expect((yield* run(families.list("brand"))).length).toBe(1)
      }))

    it.effect("reports usage and removes every value of a deleted attribute in one transaction", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const other = yield* newTenant
        const attributes = yield* Attributes
        const families = yield* Families
        const run = inTenant(tenant)
        const color = yield* run(attributes.create(attr("color")))
        yield* run(attributes.create(attr("size")))
        const fam = yield* run(families.create({ code: "fam", label: {} }))
        yield* run(families.attach(fam.id, { attributeId: color.id }))
        const r1 = yield* insertValued(organization.id, "test_valued_records", { color: entry("red"), size: entry("M") })
        const r2 = yield* insertValued(organization.id, "test_valued_records", { color: entry("blue") })
        const r3 = yield* insertValued(organization.id, "test_valued_records", { size: entry("L") })
        const v1 = yield* insertValued(organization.id, "test_valued_variants", { color: entry("green") })
        const b1 = yield* insertValued(organization.id, "test_valued_brands", { color: entry("brand colour") })
        const foreign = yield* insertValued(other.organization.id, "test_valued_records", { color: entry("red") })

        expect(yield* run(attributes.usage(color.id))).toEqual({ products: 2, variants: 1, contentPages: 0, categories: 0, brands: 0, total: 3 })
        yield* run(attributes.delete(color.id))

        for (const id of [r1, r2]) {
          const row = yield* storedRow(organization.id, "test_valued_records", id)
          expect(row?.attributes.color).toBeUndefined()
          expect(row?.updatedAt).not.toBe("2000-01-01T00:00:00.000Z")
        }
        expect((yield* storedRow(organization.id, "test_valued_records", r1))?.attributes).toEqual({ size: entry("M") })
        expect((yield* storedRow(organization.id, "test_valued_records", r3))?.updatedAt).toBe("2000-01-01T00:00:00.000Z")
        expect((yield* storedRow(organization.id, "test_valued_variants", v1))?.attributes).toEqual({})
        expect((yield* storedRow(organization.id, "test_valued_brands", b1))?.attributes).toEqual({ color: entry("brand colour") })
        expect((yield* storedRow(other.organization.id, "test_valued_records", foreign))?.attributes).toEqual({ color: entry("red") })
        expect((yield* run(families.get(fam.id))).attributes).toEqual([])
        expect(failureTag(yield* Effect.exit(run(attributes.get(color.id))))).toBe("NotFound")
        expect(failureTag(yield* Effect.exit(run(attributes.delete(color.id))))).toBe("NotFound")
        expect(failureTag(yield* Effect.exit(run(attributes.usage(color.id))))).toBe("NotFound")

        const deleted = (yield* eventsOf(organization.id)).find((e) => e.name === "attribute.deleted")
        expect(deleted?.entityId).toBe(color.id)
        expect(deleted?.payload.removed_from).toEqual({ products: 2, variants: 1, contentPages: 0, categories: 0, brands: 0 })
      }))

    it.effect("moves stored values along when an attribute's code changes, and keeps its type while values exist", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const colour = yield* run(attributes.create(attr("colour")))
        const id = yield* insertValued(organization.id, "test_valued_records", { colour: entry("red"), size: entry("M") })
        expect(failureTag(yield* Effect.exit(run(attributes.update(colour.id, { type: "number" }))))).toBe("ValidationFailed")
        const renamed = yield* run(attributes.update(colour.id, { code: "color", label: { en: "Color" } }))
        expect(renamed.code).toBe("color")
        expect((yield* storedRow(organization.id, "test_valued_records", id))?.attributes).toEqual({ size: entry("M"), color: entry("red") })
        expect((yield* run(attributes.usage(colour.id))).products).toBe(1)
        const updated = (yield* eventsOf(organization.id)).filter((e) => e.name === "attribute.updated")
        expect(updated.map((e) => e.payload.changed_fields)).toEqual([["code", "label"]])
      }))

    it.effect("takes a default sent again in another spelling of the same value as no change", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const ref = "0190F3B2-7C4A-7D3E-8A1B-2C3D4E5F6A7B"
        const weight = yield* run(attributes.create(attr("weight", { type: "decimal", defaultValue: 1.5 })))
        const related = yield* run(attributes.create(attr("related", { type: "reference", defaultValue: ref })))
        const launch = yield* run(attributes.create(attr("launch", { type: "datetime", defaultValue: "2024-01-01T10:00:00+02:00" })))
        expect(yield* run(attributes.update(weight.id, { defaultValue: 1.5 }))).toEqual(weight)
        expect(yield* run(attributes.update(related.id, { defaultValue: ref }))).toEqual(related)
        expect(yield* run(attributes.update(launch.id, { defaultValue: "2024-01-01T10:00:00+02:00" }))).toEqual(launch)
        const updates = () => Effect.map(eventsOf(organization.id), (events) => events.filter((e) => e.name === "attribute.updated").map((e) => e.payload.changed_fields))
        expect(yield* updates()).toEqual([[], [], []])
        const changed = yield* run(attributes.update(weight.id, { defaultValue: 2, label: { en: "weight" } }))
        expect(changed.defaultValue).toBe("2")
        expect(yield* updates()).toEqual([[], [], [], ["defaultValue"]])
      }))

    it.effect("keeps isLocalizable and isScopable on while records hold values at a locale or channel", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const other = yield* newTenant
        const attributes = yield* Attributes
        const run = inTenant(tenant)
        const scoped = { isLocalizable: true, isScopable: true }
        const title = yield* run(attributes.create(attr("title", scoped)))
        const at = (locale: string | null, channel: string | null) => [{ locale, channel, value: "x" }, { locale: null, channel: null, value: "y" }]
        yield* insertValued(organization.id, "test_valued_records", { title: at("en", null) })
        yield* insertValued(organization.id, "test_valued_variants", { title: at(null, "web") })
        yield* insertValued(organization.id, "test_valued_records", { title: entry("plain"), other: at("en", "web") })
        yield* insertValued(organization.id, "test_valued_brands", { title: at("en", "web") })
        yield* insertValued(other.organization.id, "test_valued_records", { title: at("en", "web") })
        const store = yield* AttributeValueStore
        const uow = yield* UnitOfWork
        const counted = (scope: "locale" | "channel") => uow.tenant(organization.id, store.scopedUsage(organization.id, "product", "title", scope))
        expect(yield* counted("locale")).toEqual({ products: 1, variants: 0, contentPages: 0, categories: 0, brands: 0 })
        expect(yield* counted("channel")).toEqual({ products: 0, variants: 1, contentPages: 0, categories: 0, brands: 0 })

        const refused = yield* Effect.flip(run(attributes.update(title.id, { isLocalizable: false, isScopable: false, label: { en: "Title" } })))
        assert(refused._tag === "ValidationFailed")
        expect(refused.issues.map((i) => [i.path, i.code])).toEqual([[["isLocalizable"], "in_use"], [["isScopable"], "in_use"]])
        expect((yield* run(attributes.get(title.id))).label).toEqual({ en: "title" })
        // A refused default is listed with the refusals of the stored values, not alone.
        const retyped = yield* Effect.flip(run(attributes.update(title.id, { type: "number", defaultValue: "zz" })))
        assert(retyped._tag === "ValidationFailed")
        expect(retyped.issues.map((i) => [i.path, i.code === "in_use"])).toEqual([[["defaultValue"], false], [["type"], true]])

        // Values at null only, or none at all, let a flag turn off.
        const plain = yield* run(attributes.create(attr("plain", scoped)))
        yield* insertValued(organization.id, "test_valued_records", { plain: entry("x") })
        expect(yield* run(attributes.update(plain.id, { isLocalizable: false, isScopable: false }))).toMatchObject({ isLocalizable: false, isScopable: false })
        const unused = yield* run(attributes.create(attr("unused", scoped)))
        expect((yield* run(attributes.update(unused.id, { isScopable: false }))).isScopable).toBe(false)
        expect((yield* run(attributes.update(title.id, { isLocalizable: true, isScopable: true }))).isLocalizable).toBe(true)
      }))

    it.effect("the value store rolls back with the transaction that called it", () =>
      Effect.gen(function*() {
        const { organization } = yield* newTenant
        const store = yield* AttributeValueStore
        const id = yield* insertValued(organization.id, "test_valued_records", { gone: entry(1) })
        const exit = yield* Effect.exit((yield* UnitOfWork).tenant(
          organization.id,
          Effect.zipRight(store.remove(organization.id, "product", "gone", "2001-01-01T00:00:00.000Z"), Effect.fail("abort"))
        ))
        expect(Exit.isFailure(exit)).toBe(true)
        expect((yield* storedRow(organization.id, "test_valued_records", id))?.attributes).toEqual({ gone: entry(1) })
        expect((yield* (yield* UnitOfWork).tenant(organization.id, store.usage(organization.id, "product", "gone"))).products).toBe(1)
      }))

    it.effect("refuses to delete a family a record still references, and deletes it with its attachments once free", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const families = yield* Families
        const attributes = yield* Attributes
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const run = inTenant(tenant)
        const fam = yield* run(families.create({ code: "used", label: {} }))
        const a = yield* run(attributes.create(attr("kept")))
        yield* run(families.attach(fam.id, { attributeId: a.id }))
        const memberId = yield* (yield* Crypto).uuid
        yield* uow.tenant(organization.id, sql`insert into test_family_members ${sql.insert({ id: memberId, organizationId: organization.id, familyId: fam.id })}`).pipe(Effect.orDie)
        expect(failureTag(yield* Effect.exit(run(families.delete(fam.id))))).toBe("Conflict")
        expect((yield* run(families.get(fam.id))).attributes.length).toBe(1)
        yield* uow.tenant(organization.id, sql`delete from test_family_members where id = ${memberId}`).pipe(Effect.orDie)
        yield* run(families.delete(fam.id))
        expect(failureTag(yield* Effect.exit(run(families.get(fam.id))))).toBe("NotFound")
        expect((yield* run(attributes.get(a.id))).id).toBe(a.id)
        expect(failureTag(yield* Effect.exit(run(families.delete(fam.id))))).toBe("NotFound")
      }))

    it.effect("deletes a family once under concurrent deletions: one succeeds, the others find nothing", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const families = yield* Families
        const run = inTenant(tenant)
        const fam = yield* run(families.create({ code: "raced", label: {} }))
        const exits = yield* Effect.all(Array.from({ length: 6 }, () => Effect.exit(run(families.delete(fam.id)))), {
          concurrency: "unbounded"
        })
        expect(exits.filter(Exit.isSuccess).length).toBe(1)
        expect(exits.filter(Exit.isFailure).map(failureTag)).toEqual(Array(5).fill("NotFound"))
        const names = (yield* eventsOf(tenant.organizationId)).map((e) => e.name)
        expect(names.filter((n) => n === "family.deleted").length).toBe(1)
      }))

    it.effect("keeps every one of concurrent patches of a family and of an attachment, each recording only what it changed", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const families = yield* Families
        const run = inTenant(tenant)
        const fam = yield* run(families.create({ code: "patched", label: { en: "Patched" } }))
        const familyChanges = yield* racedChanges(tenant.organizationId, "family.updated", [
          run(families.update(fam.id, { label: { en: "Shoes" } })),
          run(families.update(fam.id, { description: "Footwear" }))
        ])
        expect(familyChanges).toEqual(['["description"]', '["label"]', "[]", "[]"])
        expect(yield* run(families.get(fam.id))).toMatchObject({ label: { en: "Shoes" }, description: "Footwear" })

        const a = yield* run((yield* Attributes).create({ code: "sole", label: { en: "Sole" }, type: "text" }))
        yield* run(families.attach(fam.id, { attributeId: a.id }))
        const attachmentChanges = yield* racedChanges(tenant.organizationId, "family_attribute.updated", [
          run(families.updateAttachment(fam.id, a.id, { position: 3 })),
          run(families.updateAttachment(fam.id, a.id, { requirementOverride: "required" }))
        ])
        expect(attachmentChanges).toEqual(['["position"]', '["requirementOverride"]', "[]", "[]"])
      }))

    it.effect("an organization's deletion cascades through families still referenced by its records", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const families = yield* Families
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const fam = yield* inTenant(tenant)(families.create({ code: "doomed", label: {} }))
        const memberId = yield* (yield* Crypto).uuid
        yield* uow.tenant(organization.id, sql`insert into test_family_members ${sql.insert({ id: memberId, organizationId: organization.id, familyId: fam.id })}`).pipe(Effect.orDie)
        const counts = yield* uow.system((yield* OrganizationRepository).deleteCascade(organization.id))
        expect(counts.attributeFamilies).toBe(1)
      }))

    it.effect("keeps each organization's schema invisible to the others", () =>
      Effect.gen(function*() {
        const a = yield* newTenant
        const b = yield* newTenant
        const attributes = yield* Attributes
        const families = yield* Families
        const x = yield* inTenant(a.tenant)(attributes.create(attr("shared_code")))
        const fam = yield* inTenant(a.tenant)(families.create({ code: "shared_fam", label: {} }))
        expect(yield* inTenant(b.tenant)(attributes.list("product"))).toEqual([])
        expect(failureTag(yield* Effect.exit(inTenant(b.tenant)(attributes.get(x.id))))).toBe("NotFound")
        expect(failureTag(yield* Effect.exit(inTenant(b.tenant)(families.get(fam.id))))).toBe("NotFound")
        expect(failureTag(yield* Effect.exit(inTenant(b.tenant)(families.attach(fam.id, { attributeId: x.id }))))).toBe("NotFound")
        // Codes are per organization.
        yield* inTenant(b.tenant)(attributes.create(attr("shared_code")))
        yield* inTenant(b.tenant)(families.create({ code: "shared_fam", label: {} }))
      }))
  })
