import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { upTo } from "./MigrateUpTo.js"

/**
 * A catalog as the version whose newest migration was 20 left it: the schema of migrations 1
 * to 20 only, and rows as that version wrote them (taken from a catalog it made through its use
 * cases). What later versions changed shows in them: search text that splits `Water<b>proof</b>`
 * and `Edel&shy;stahl` into two words, spells `ß` as itself and `&amp;` as `amp`, and holds
 * Hangul decomposed into its letters; variants keyed by their axis combination itself, not its
 * digest; brands unique by `lower(name)` and no name keys; no folded names; tags without marks.
 */
export const AT = 20

const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`

export const ids = {
  org: id(1),
  otherOrg: id(2),
  user: id(3),
  price: id(10),
  weight: id(11),
  material: id(12),
  body: id(13),
  colour: id(14),
  size: id(15),
  shoes: id(20),
  footwear: id(30),
  boots: id(31),
  acme: id(40),
  strasseCo: id(41),
  straßeCo: id(42),
  otherAcme: id(43),
  trailBoot: id(50),
  cafeSandal: id(51),
  hangul: id(52),
  strassenschuh: id(53),
  otherBoot: id(54),
  red42: id(60),
  blue43: id(61),
  photo: id(70)
} as const

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`

const val = (value: unknown) => [{ locale: null, channel: null, value }]

/** The values of the Trail Boot, as given when it was made. */
export const trailBootValues = {
  price: val({ amount_cents: 12999, currency: "EUR" }),
  weight: val(1.2),
  material: [{ locale: "en", channel: null, value: "leather" }, { locale: "de", channel: null, value: "Leder" }],
  body: val("<p>Water<b>proof</b> &amp; warm</p>")
}

interface ProductRow {
  readonly id: string
  readonly organization: string
  readonly name: string
  readonly slug: string
  readonly status: string
  readonly brand: string | null
  readonly attributes: unknown
  readonly tags: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  readonly numbers: ReadonlyArray<readonly [string, number]>
  readonly searchText: string
}

const products: ReadonlyArray<ProductRow> = [
  {
    id: ids.trailBoot, organization: ids.org, name: "Trail Boot", slug: "trail-boot", status: "active", brand: ids.acme,
    attributes: trailBootValues, tags: ["outdoor", "sale"], categories: [ids.footwear, ids.boots],
    numbers: [[ids.price, 12999], [ids.weight, 1.2]], searchText: " trail boot trail boot water proof amp warm leather leder "
  },
  {
    id: ids.cafeSandal, organization: ids.org, name: "Café Sandal", slug: "cafe-sandal", status: "active", brand: ids.strasseCo,
    attributes: { price: val({ amount_cents: 4999, currency: "EUR" }), weight: val(0.4) }, tags: ["cafe", "summer"], categories: [ids.footwear],
    numbers: [[ids.price, 4999], [ids.weight, 0.4]], searchText: " cafe sandal cafe sandal "
  },
  {
    id: ids.hangul, organization: ids.org, name: "한국어 슬리퍼", slug: "product", status: "draft", brand: null,
    attributes: { weight: val(0.3), material: [{ locale: "en", channel: null, value: "wool" }] }, tags: ["indoor"], categories: [ids.boots],
    numbers: [[ids.weight, 0.3]], searchText: ` ${"한국어 슬리퍼".normalize("NFD")} product wool `
  },
  {
    id: ids.strassenschuh, organization: ids.org, name: "Straßenschuh", slug: "stra-enschuh", status: "active", brand: ids.acme,
    attributes: { price: val({ amount_cents: 8999, currency: "EUR" }), body: val("Edel\u00ADstahl") }, tags: [], categories: [],
    numbers: [[ids.price, 8999]], searchText: " straßenschuh stra enschuh edel stahl "
  },
  {
    id: ids.otherBoot, organization: ids.otherOrg, name: "Trail Boot", slug: "trail-boot", status: "active", brand: ids.otherAcme,
    attributes: {}, tags: ["sale"], categories: [], numbers: [], searchText: " trail boot trail boot "
  }
]

/** The events the version at 20 wrote for these rows (its audit log), oldest first. */
export const eventNames = [
  "organization.created",
  "category.created",
  "category.created",
  "brand.created",
  "brand.created",
  "brand.created",
  "product.created",
  "product.created",
  "product.created",
  "product.created",
  "variant.created",
  "variant.created",
  "media.attached"
] as const

/** Migrates a fresh database to migration 20 and writes the catalog into it. */
export const catalogAt20 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const bool = (b: boolean) => (pg ? b : b ? 1 : 0)
  const json = (value: unknown) => JSON.stringify(value)
  yield* upTo(AT)

  for (const [organization, name, slug] of [[ids.org, "Shop", "shop"], [ids.otherOrg, "Other", "other"]] as const) {
    yield* sql`insert into organizations (id, name, slug, settings, billing, created_at, updated_at)
      values (${organization}, ${name}, ${slug}, null, null, ${at(0)}, ${at(0)})`
  }
  const attributes = [
    [ids.price, "price", "Price", "money", false, false, null],
    [ids.weight, "weight", "Weight", "number", false, false, null],
    [ids.material, "material", "Material", "text", true, false, null],
    [ids.body, "body", "Body", "richtext", false, false, null],
    [ids.colour, "colour", "Colour", "select", false, true, { options: ["red", "blue"] }],
    [ids.size, "size", "Size", "text", false, true, null]
  ] as const
  for (const [attributeId, code, label, type, localizable, axis, validation] of attributes) {
    yield* sql`insert into attributes (id, organization_id, code, entity_kind, label, type, group_id, is_localizable, is_scopable, requirement,
      is_variant_axis, validation, default_value, position, created_by, updated_by, created_at, updated_at)
      values (${attributeId}, ${ids.org}, ${code}, 'product', ${json({ en: label })}, ${type}, null, ${bool(localizable)}, ${bool(false)}, 'available',
      ${bool(axis)}, ${validation === null ? null : json(validation)}, null, 0, ${ids.user}, ${ids.user}, ${at(1)}, ${at(1)})`
  }
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, description, created_at, updated_at)
    values (${ids.shoes}, ${ids.org}, 'shoes', 'product', ${json({ en: "Shoes" })}, null, ${at(2)}, ${at(2)})`
  for (const [attributeId] of attributes) {
    yield* sql`insert into family_attributes (organization_id, family_id, attribute_id, requirement_override, position, created_at, updated_at)
      values (${ids.org}, ${ids.shoes}, ${attributeId}, null, 0, ${at(2)}, ${at(2)})`
  }
  // The other organization's family: products need one.
  yield* sql`insert into attribute_families (id, organization_id, code, entity_kind, label, description, created_at, updated_at)
    values (${id(21)}, ${ids.otherOrg}, 'shoes', 'product', ${json({ en: "Shoes" })}, null, ${at(2)}, ${at(2)})`

  for (const [categoryId, parent, name, slug] of [[ids.footwear, null, "Footwear", "footwear"], [ids.boots, ids.footwear, "Straßen  Boots", "stra-en-boots"]] as const) {
    yield* sql`insert into categories (id, organization_id, parent_id, name, slug, position, attributes, created_by, updated_by, created_at, updated_at)
      values (${categoryId}, ${ids.org}, ${parent}, ${name}, ${slug}, 0, '{}', ${ids.user}, ${ids.user}, ${at(3)}, ${at(3)})`
  }
  // `STRASSE Co` and `Straße Co` differ under `lower()`, which brand names were unique by.
  const brands = [
    [ids.acme, ids.org, "Acme", "acme", 4],
    [ids.strasseCo, ids.org, "STRASSE Co", "strasse-co", 5],
    [ids.straßeCo, ids.org, "Straße Co", "stra-e-co", 6],
    [ids.otherAcme, ids.otherOrg, "Acme", "acme", 4]
  ] as const
  for (const [brandId, organization, name, slug, second] of brands) {
    yield* sql`insert into brands (id, organization_id, name, slug, attributes, created_by, updated_by, created_at, updated_at)
      values (${brandId}, ${organization}, ${name}, ${slug}, '{}', ${ids.user}, ${ids.user}, ${at(second)}, ${at(second)})`
  }

  for (const [i, p] of products.entries()) {
    const family = p.organization === ids.org ? ids.shoes : id(21)
    yield* sql`insert into products (id, organization_id, family_id, name, slug, status, brand_id, attributes, tags, source_connector_id,
      search_text, created_by, updated_by, created_at, updated_at)
      values (${p.id}, ${p.organization}, ${family}, ${p.name}, ${p.slug}, ${p.status}, ${p.brand}, ${json(p.attributes)}, ${json(p.tags)}, null,
      ${p.searchText}, ${ids.user}, ${ids.user}, ${at(10 + i)}, ${at(10 + i)})`
    for (const tag of p.tags) yield* sql`insert into product_tags (organization_id, product_id, tag) values (${p.organization}, ${p.id}, ${tag})`
    for (const [position, category] of p.categories.entries()) {
      yield* sql`insert into product_categories (organization_id, product_id, category_id, position, family_id, status, brand_id, source_connector_id)
        values (${p.organization}, ${p.id}, ${category}, ${position}, ${family}, ${p.status}, ${p.brand}, null)`
    }
    for (const [attributeId, value] of p.numbers) {
      yield* sql`insert into product_numbers (organization_id, product_id, attribute_id, value) values (${p.organization}, ${p.id}, ${attributeId}, ${value})`
    }
  }

  // Variants were unique by the axis combination itself, held in `axis_key`.
  const variants = [[ids.red42, "TB-RED-42", "red", "42", 0], [ids.blue43, "TB-BLUE-43", "blue", "43", 1]] as const
  for (const [variantId, sku, colour, size, position] of variants) {
    yield* sql`insert into variants (id, organization_id, product_id, sku, name, status, attributes, axis_key, position, created_at, updated_at)
      values (${variantId}, ${ids.org}, ${ids.trailBoot}, ${sku}, ${sku}, 'draft', ${json({ colour: val(colour), size: val(size) })},
      ${json([["colour", [[null, null, colour]]], ["size", [[null, null, size]]]])}, ${position}, ${at(20 + position)}, ${at(20 + position)})`
  }

  yield* sql`insert into media (id, organization_id, product_id, blob_key, filename, content_type, size, sha256, alt, position, created_at, updated_at)
    values (${ids.photo}, ${ids.org}, ${ids.trailBoot}, ${`media/${ids.org}/${ids.photo}`}, 'boot.png', 'image/png', 16,
    'e90137d39de304eefbbe788bc535c7e82f27abbf8069505fbbd8a9dcdc4f2024', 'Side view', 0, ${at(30)}, ${at(30)})`

  const entities: ReadonlyArray<readonly [string, string, unknown]> = [
    [ids.org, "organization", { slug: "shop" }],
    [ids.footwear, "category", { slug: "footwear" }],
    [ids.boots, "category", { slug: "stra-en-boots" }],
    [ids.acme, "brand", { slug: "acme" }],
    [ids.strasseCo, "brand", { slug: "strasse-co" }],
    [ids.straßeCo, "brand", { slug: "stra-e-co" }],
    ...products.filter((p) => p.organization === ids.org).map((p) => [p.id, "product", { slug: p.slug }] as const),
    [ids.red42, "variant", { productId: ids.trailBoot, sku: "TB-RED-42" }],
    [ids.blue43, "variant", { productId: ids.trailBoot, sku: "TB-BLUE-43" }],
    [ids.photo, "media", { productId: ids.trailBoot, filename: "boot.png", contentType: "image/png", size: 16 }]
  ]
  for (const [i, [entityId, type, payload]] of entities.entries()) {
    const [actorType, actorId] = type === "organization" ? ["service", "00000000-0000-0000-0000-000000000000"] : ["user", ids.user]
    yield* sql`insert into events (id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at, dispatched)
      values (${id(100 + i)}, ${ids.org}, ${eventNames[i]!}, ${type}, ${entityId}, ${actorType}, ${actorId}, ${json(payload)}, ${at(40 + i)}, ${bool(true)})`
  }
})
