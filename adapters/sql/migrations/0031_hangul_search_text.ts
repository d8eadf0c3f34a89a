import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { searchText } from "../../../core/catalog/Text.js"
import { chunksOf } from "../Columns.js"
import { refreshSearchText } from "../ProductIndexRefresh.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))

/**
 * Search text now keeps Hangul syllables composed (`각`, not its letters `ᄀ`, `ᅡ`, `ᆨ`, in which
 * `가` was a part of `각` and a word of two syllables took near misses). The products whose
 * search text holds such letters get it, and their folded name, made again.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const jamo = sql.onDialectOrElse({
    pg: () => sql`search_text ~ ${"[\u1100-\u11ff]"}`,
    orElse: () => sql`search_text glob ${"*[\u1100-\u11ff]*"}`
  })
  const rows = yield* sql`select id, organization_id, name from products where ${jamo}`.pipe(Effect.flatMap(Schema.decodeUnknown(Rows)))
  if (rows.length === 0) return
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  // SQLite's trigram index rewrites a changed text's entries one product at a time; for many
  // products, it is made again in one pass instead (as migration 27 does).
  const [trigger] = !pg && rows.length > 1000
    ? yield* sql`select sql from sqlite_master where type = 'trigger' and name = 'products_fts_update'`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ sql: Schema.String }))))
    )
    : []
  if (trigger !== undefined) yield* sql.unsafe("DROP TRIGGER products_fts_update")
  for (const chunk of chunksOf(rows, 500)) {
    const named = chunk.map((r) => ({ id: r.id, text: searchText([r.name]) }))
    yield* pg
      ? sql`update products set name_text = named.text
          from unnest(${named.map((n) => n.id)}::uuid[], ${named.map((n) => n.text)}::text[]) as named (id, text)
          where products.id = named.id`
      : Effect.forEach(named, (n) => sql`update products set name_text = ${n.text} where id = ${n.id}`, { discard: true })
  }
  const byOrganization = new Map<string, Array<string>>()
  for (const row of rows) {
    const ids = byOrganization.get(row.organizationId)
    if (ids === undefined) byOrganization.set(row.organizationId, [row.id])
    else ids.push(row.id)
  }
  for (const [organizationId, ids] of byOrganization) yield* refreshSearchText(sql, organizationId, ids)
  if (trigger !== undefined) {
    yield* sql.unsafe("INSERT INTO products_fts (products_fts) VALUES ('rebuild')")
    yield* sql.unsafe(trigger.sql)
  }
})
