import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, type Layer, Schema } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { Brand } from "../../core/catalog/Brand.js"
import { Brands } from "../../core/catalog/Brands.js"
import { Category } from "../../core/catalog/Category.js"
import { Categories } from "../../core/catalog/Categories.js"
import { caseKey } from "../../core/catalog/Text.js"
import { Modifier } from "../../core/modifiers/Modifier.js"
import { Modifiers } from "../../core/modifiers/Modifiers.js"
import { AttributeGroup } from "../../core/schema/Attribute.js"
import { AttributeGroups } from "../../core/schema/AttributeGroups.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { Family } from "../../core/schema/Family.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { catalogOver, newTenant } from "../support/Catalog.js"

const byKeys = <A extends { readonly id: string }>(...keys: ReadonlyArray<(a: A) => string | number>) => (a: A, b: A) => {
  for (const key of [...keys, (x: A) => x.id]) {
    const [x, y] = [key(a), key(b)]
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

/**
 * Records read back whole from their rows are what the writes answered, in the lists' order, and
 * pass the domain schema's checks, which reading them no longer runs again.
 */
const asWritten = <A extends { readonly id: string }, I>(schema: Schema.Schema<A, I>, listed: ReadonlyArray<A>, written: ReadonlyArray<A>) => {
  expect(listed).toStrictEqual(written)
  for (const record of listed) expect(Schema.validateSync(schema)(record)).toBe(record)
}

/** The lists answered whole, against one storage adapter. */
export const storedRowsSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("lists categories, brands, modifiers, families and attribute groups as their writes answered them", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const as = <A, Err, R>(e: Effect.Effect<A, Err, R>) => Effect.provideService(e, CurrentTenant, tenant)
        const categories = yield* Categories
        const brands = yield* Brands
        const modifiers = yield* Modifiers
        const families = yield* Families
        const groups = yield* AttributeGroups
        const attributes = yield* Attributes

        for (const entityKind of ["category", "brand"] as const) {
          const family = (yield* as(families.provisioned(entityKind))).family
          const attribute = yield* as(attributes.create({ code: `tagline_${entityKind}`, label: { en: "Tagline" }, type: "text", entityKind, isLocalizable: true }))
          yield* as(families.attach(family.id, { attributeId: attribute.id }))
        }
        const tagline = (entityKind: string) => ({ [`tagline_${entityKind}`]: [{ locale: "en", channel: null, value: "Hello" }, { locale: "fr", channel: null, value: "Bonjour" }] })

        const root = yield* as(categories.create({ name: "shoes", position: 2, attributes: tagline("category") }))
        const madeCategories = [
          root,
          yield* as(categories.create({ name: "Boots", position: 2, parentId: root.id })),
          yield* as(categories.create({ name: "Sandals", position: 1, parentId: root.id })),
          yield* as(categories.create({ name: "Ämbles", position: 2 })),
          yield* as(categories.create({ name: "boots", slug: "boots-2", position: 2 }))
        ]
        const moved = yield* as(categories.update(madeCategories[1]!.id, { parentId: null, name: "Clogs" }))
        const writtenCategories = [...madeCategories.filter((c) => c.id !== moved.id), moved]
          .sort(byKeys((c) => c.position, (c) => caseKey(c.name)))
        asWritten(Category, yield* as(categories.list({})), writtenCategories)
        asWritten(Category, yield* as(categories.list({ parentId: root.id })), writtenCategories.filter((c) => c.parentId === root.id))

        const writtenBrands = [
          yield* as(brands.create({ name: "zeta", attributes: tagline("brand") })),
          yield* as(brands.create({ name: "Alpha" })),
          yield* as(brands.create({ name: "Émile" })),
          yield* as(brands.create({ name: "beta" }))
        ].sort(byKeys((b) => caseKey(b.name)))
        asWritten(Brand, yield* as(brands.list({})), writtenBrands)

        const writtenModifiers = [
          yield* as(modifiers.create({ code: "size", name: "Size", type: "select", options: [
            { value: "s", label: "Small" },
            { value: "l", label: { en: "Large", "fr-FR": "Grand" }, priceAdjustment: { amount_cents: 250, currency: "EUR" } }
          ] })),
          yield* as(modifiers.create({ code: "engraving", name: "Engraving", type: "text" }))
        ].sort(byKeys((m) => m.code))
        asWritten(Modifier, yield* as(modifiers.list), writtenModifiers)

        const writtenFamilies = [
          yield* as(families.create({ code: "shirts", label: { en: "Shirts", de: "Hemden" }, description: "Tops" })),
          yield* as(families.create({ code: "coats", label: { en: "Coats" } }))
        ].sort(byKeys((f) => f.code))
        asWritten(Family, yield* as(families.list("product")), writtenFamilies)

        const writtenGroups = [
          yield* as(groups.create({ code: "marketing", label: { en: "Marketing", fr: "Marketing FR" }, position: 1 })),
          yield* as(groups.create({ code: "logistics", label: { en: "Logistics" }, position: 1 })),
          yield* as(groups.create({ code: "basics", label: { en: "Basics" }, position: 2 }))
        ].sort(byKeys((g) => g.position, (g) => g.code))
        asWritten(AttributeGroup, yield* as(groups.list), writtenGroups)
      }))
  })
