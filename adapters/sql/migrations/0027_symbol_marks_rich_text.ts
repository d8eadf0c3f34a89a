import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { canonicalTag } from "../../../core/catalog/Tags.js"
import { JsonColumn, toJson } from "../Columns.js"
import { refreshSearchText } from "../ProductIndexRefresh.js"

const TagRows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, tags: JsonColumn(Schema.Array(Schema.String)) }))
const Ids = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String }))

/** A tag that kept a mark on a symbol or a variation selector, which canonicalization now drops. */
const SYMBOL_MARK = /^\p{M}|[^\p{L}\p{M}\p{N}]\p{M}|[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u

/** Letters that search text now spells otherwise: the Latin letters of their own, and the final sigma. */
const RESPELLED = "ßøæœłđðþıħŧς"

/**
 * Tags now take a mark on a symbol, and a variation selector, as non-alphanumeric (`❤️` is
 * dropped, `sale ❤️` is `sale`): stored tags that kept one are canonicalized again. Search
 * text now reads markup in rich text only, and rich text's character references: products
 * whose values hold a `<` or a `&` get their search text made again, as do those whose search text
 * holds a letter it now spells otherwise (`ß` as `ss`, `ς` as `σ`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id, organization_id, tags from products`.pipe(Effect.flatMap(Schema.decodeUnknown(TagRows)))
  for (const row of rows) {
    if (!row.tags.some((tag) => SYMBOL_MARK.test(tag))) continue
    const tags = [...new Set(row.tags.map((tag) => (SYMBOL_MARK.test(tag) ? canonicalTag(tag) : tag)).filter((tag) => tag.length > 0))]
    yield* sql`update products set tags = ${toJson(tags)} where id = ${row.id}`
    yield* sql`delete from product_tags where product_id = ${row.id}`
    if (tags.length > 0) {
      yield* sql`insert into product_tags ${sql.insert(tags.map((tag) => ({ organizationId: row.organizationId, productId: row.id, tag })))}`
    }
  }
  const text = sql.onDialectOrElse({ pg: () => sql`attributes::text`, orElse: () => sql`attributes` })
  const spelled = sql.or([...RESPELLED].map((c) => sql`search_text like ${`%${c}%`}`))
  const marked = yield* sql`select id, organization_id from products where ${text} like '%<%' or ${text} like '%&%' or ${spelled}`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Ids))
  )
  const byOrganization = new Map<string, Array<string>>()
  for (const row of marked) {
    const ids = byOrganization.get(row.organizationId)
    if (ids === undefined) byOrganization.set(row.organizationId, [row.id])
    else ids.push(row.id)
  }
  // SQLite's trigram index rewrites a changed text's entries one product at a time (over four
  // minutes for 100,000 products); for many products, it is made again in one pass instead.
  const sqlite = sql.onDialectOrElse({ pg: () => false, orElse: () => true })
  const [trigger] = sqlite && marked.length > 1000
    ? yield* sql`select sql from sqlite_master where type = 'trigger' and name = 'products_fts_update'`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ sql: Schema.String }))))
    )
    : []
  if (trigger !== undefined) yield* sql.unsafe("DROP TRIGGER products_fts_update")
  for (const [organizationId, ids] of byOrganization) yield* refreshSearchText(sql, organizationId, ids)
  if (trigger !== undefined) {
    yield* sql.unsafe("INSERT INTO products_fts (products_fts) VALUES ('rebuild')")
    yield* sql.unsafe(trigger.sql)
  }
})
