import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { JsonColumn, toJson } from "../Columns.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, tags: JsonColumn(Schema.Array(Schema.String)) }))

/**
 * Tags were stored decomposed (NFD) and are now composed (NFC), so that a Hangul tag written
 * or filtered today meets the same tag written before. Tags that lost marks when every mark
 * was stripped stay as they are: the marks cannot be told back.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id, organization_id, tags from products`.pipe(Effect.flatMap(Schema.decodeUnknown(Rows)))
  for (const row of rows) {
    const composed = [...new Set(row.tags.map((tag) => tag.normalize("NFC")))]
    if (composed.length === row.tags.length && composed.every((tag, i) => tag === row.tags[i])) continue
    yield* sql`update products set tags = ${toJson(composed)} where id = ${row.id}`
    yield* sql`delete from product_tags where product_id = ${row.id}`
    yield* sql`insert into product_tags ${sql.insert(composed.map((tag) => ({ organizationId: row.organizationId, productId: row.id, tag })))}`
  }
})
