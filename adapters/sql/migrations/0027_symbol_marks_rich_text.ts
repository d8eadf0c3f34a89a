import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { canonicalTag } from "../../../core/catalog/Tags.js"
import { JsonColumn, toJson } from "../Columns.js"
import { refreshFoldedTexts } from "../ProductIndexRefresh.js"

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
  yield* refreshFoldedTexts(sql, [], marked)
})
