import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { searchText } from "../../core/catalog/Text.js"
import { productIndex, productSearchText } from "../../core/products/ProductValues.js"
import { AttributeType } from "../../core/schema/AttributeValues.js"
import { chunksOf, StoredValuesColumn } from "./Columns.js"
import { syncProductNumbers } from "./ProductNumbers.js"

const ProductRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  id: Schema.String,
  familyId: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  attributes: StoredValuesColumn,
  searchText: Schema.String
})))
const SpecRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  familyId: Schema.String,
  attributeId: Schema.String,
  code: Schema.String,
  type: AttributeType
})))
const IdRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))

/** These products as stored, with the attributes their families declare now, by family. */
const readChunk = (sql: SqlClient.SqlClient, organizationId: string, chunk: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const rows = yield* sql`select id, family_id, name, slug, attributes, search_text from products
      where organization_id = ${organizationId} and ${sql.in("id", chunk)}`.pipe(Effect.flatMap(ProductRows))
    const familyIds = [...new Set(rows.map((r) => r.familyId))]
    const specs = familyIds.length === 0 ? [] : yield* sql`select fa.family_id, fa.attribute_id, a.code, a.type
      from family_attributes fa join attributes a on a.id = fa.attribute_id
      where ${sql.in("fa.family_id", familyIds)} order by fa.position, a.code`.pipe(Effect.flatMap(SpecRows))
    const byFamily = new Map<string, typeof specs>()
    for (const spec of specs) byFamily.set(spec.familyId, [...(byFamily.get(spec.familyId) ?? []), spec])
    return { rows, specsOf: (familyId: string) => byFamily.get(familyId) ?? [] }
  })

/**
 * Makes the stored search text and sort numbers of these products match the values they hold
 * now and the attributes their family declares now, after a change made outside the product
 * repository (an attribute's deletion, an attribute attached to or detached from a family).
 */
export const refreshProductIndex = (sql: SqlClient.SqlClient, organizationId: string, ids: ReadonlyArray<string>) =>
  Effect.forEach(chunksOf(ids, 500), (chunk) =>
    Effect.gen(function*() {
      const { rows, specsOf } = yield* readChunk(sql, organizationId, chunk)
      for (const row of rows) {
        const index = productIndex(row.name, row.slug, row.attributes, specsOf(row.familyId))
        if (index.searchText !== row.searchText) yield* sql`update products set search_text = ${index.searchText} where id = ${row.id}`
        yield* syncProductNumbers(
          sql,
          row.id,
          index.numbers.map((n) => ({ organizationId, productId: row.id, attributeId: n.attributeId, value: n.value }))
        )
      }
    }), { discard: true }).pipe(Effect.orDie)

/**
 * Makes the stored search text of these products match what search reads in their values now,
 * and only that: a migration that changes how text is read leaves the sort numbers as they are.
 * Postgres writes each chunk's changed texts in one statement (a round trip a product took four
 * minutes at 100,000 products).
 */
const refreshSearchText = (sql: SqlClient.SqlClient, organizationId: string, ids: ReadonlyArray<string>) =>
  Effect.forEach(chunksOf(ids, 500), (chunk) =>
    Effect.gen(function*() {
      const { rows, specsOf } = yield* readChunk(sql, organizationId, chunk)
      const changed = rows.flatMap((row) => {
        const text = productSearchText(row.name, row.slug, row.attributes, specsOf(row.familyId))
        return text === row.searchText ? [] : [{ id: row.id, text }]
      })
      if (changed.length === 0) return
      yield* sql.onDialectOrElse({
        pg: () =>
          sql`update products set search_text = changed.text
            from unnest(${changed.map((c) => c.id)}::uuid[], ${changed.map((c) => c.text)}::text[]) as changed (id, text)
            where products.id = changed.id`,
        orElse: () => Effect.forEach(changed, (c) => sql`update products set search_text = ${c.text} where id = ${c.id}`, { discard: true })
      })
    }), { discard: true }).pipe(Effect.orDie)

/** Refreshes the index of the family's products that hold a value of the attribute. */
export const refreshFamilyHolders = (sql: SqlClient.SqlClient, organizationId: string, familyId: string, attributeId: string) =>
  Effect.gen(function*() {
    const code = sql`(select code from attributes where id = ${attributeId})`
    const holds = sql.onDialectOrElse({
      pg: () => sql`jsonb_exists(attributes, ${code})`,
      orElse: () => sql`json_type(attributes, '$.' || ${code}) is not null`
    })
    const rows = yield* sql`select id from products
      where organization_id = ${organizationId} and family_id = ${familyId} and ${holds}`.pipe(Effect.flatMap(IdRows))
    yield* refreshProductIndex(sql, organizationId, rows.map((r) => r.id))
  }).pipe(Effect.orDie)

/** Writes the folded name (`name_text`) of these products from their names; Postgres a chunk in one statement. */
export const writeNameTexts = (sql: SqlClient.SqlClient, products: ReadonlyArray<{ readonly id: string; readonly name: string }>) =>
  Effect.forEach(chunksOf(products, 500), (chunk) => {
    const named = chunk.map((r) => ({ id: r.id, text: searchText([r.name]) }))
    return sql.onDialectOrElse({
      pg: () =>
        Effect.asVoid(sql`update products set name_text = named.text
          from unnest(${named.map((n) => n.id)}::uuid[], ${named.map((n) => n.text)}::text[]) as named (id, text)
          where products.id = named.id`),
      orElse: () => Effect.forEach(named, (n) => sql`update products set name_text = ${n.text} where id = ${n.id}`, { discard: true })
    })
  }, { discard: true })

/** A product whose folded name and search text a migration makes again. */
export interface Renamed {
  readonly id: string
  readonly organizationId: string
  readonly name: string
}

/**
 * Makes again, after a change to how text is folded, the folded name (`name_text`) of the
 * `renamed` products and the search text of those and of `others`. SQLite's trigram index
 * rewrites a changed text's entries one product at a time (over four minutes for 100,000
 * products); for more than 1,000 products it is made again in one pass instead.
 */
export const refreshFoldedTexts = (
  sql: SqlClient.SqlClient,
  renamed: ReadonlyArray<Renamed>,
  others: ReadonlyArray<{ readonly id: string; readonly organizationId: string }>
) =>
  Effect.gen(function*() {
    const byOrganization = new Map<string, Set<string>>()
    for (const row of [...renamed, ...others]) {
      const ids = byOrganization.get(row.organizationId)
      if (ids === undefined) byOrganization.set(row.organizationId, new Set([row.id]))
      else ids.add(row.id)
    }
    if (byOrganization.size === 0) return
    const sqlite = sql.onDialectOrElse({ pg: () => false, orElse: () => true })
    const [trigger] = sqlite && renamed.length + others.length > 1000
      ? yield* sql`select sql from sqlite_master where type = 'trigger' and name = 'products_fts_update'`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ sql: Schema.String }))))
      )
      : []
    if (trigger !== undefined) yield* sql.unsafe("DROP TRIGGER products_fts_update")
    yield* writeNameTexts(sql, renamed)
    for (const [organizationId, ids] of byOrganization) yield* refreshSearchText(sql, organizationId, [...ids])
    if (trigger !== undefined) {
      yield* sql.unsafe("INSERT INTO products_fts (products_fts) VALUES ('rebuild')")
      yield* sql.unsafe(trigger.sql)
    }
  })
