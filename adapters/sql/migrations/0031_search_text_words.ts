import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { searchText, WORD_FORMAT } from "../../../core/catalog/Text.js"
import { chunksOf } from "../Columns.js"
import { refreshSearchText } from "../ProductIndexRefresh.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))
const Ids = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String }))

/** The characters of `pattern` as one bracket expression of ranges, for `GLOB` and `~` alike. */
const bracketOf = (pattern: RegExp): string => {
  const one = new RegExp(pattern.source, "u")
  const ranges: Array<[number, number]> = []
  for (let c = 0; c <= 0x10ffff; c++) {
    if ((c >= 0xd800 && c <= 0xdfff) || !one.test(String.fromCodePoint(c))) continue
    const last = ranges[ranges.length - 1]
    if (last !== undefined && last[1] === c - 1) last[1] = c
    else ranges.push([c, c])
  }
  return `[${ranges.map(([a, b]) => (a === b ? String.fromCodePoint(a) : `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`)).join("")}]`
}

/**
 * Search text now keeps Hangul syllables composed (`각`, not its letters `ᄀ`, `ᅡ`, `ᆨ`, in which
 * `가` was a part of `각` and a word of two syllables took near misses), reads an inline tag of
 * rich text as no break in a word (`Super<strong>sonic</strong>`) and drops invisible format
 * characters (`Wasser&shy;kocher`) instead of reading them as a break. The products whose search
 * text holds Hangul letters, or whose name holds a format character, get their folded name and
 * search text made again; those whose values hold a format character, a `<` or a `&` get their
 * search text made again where it changes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const holds = (column: ReturnType<typeof sql.literal>, bracket: string) => pg ? sql`${column} ~ ${bracket}` : sql`${column} glob ${`*${bracket}*`}`
  const format = bracketOf(WORD_FORMAT)
  const renamed = yield* sql`select id, organization_id, name from products
    where ${holds(sql.literal("search_text"), "[\u1100-\u11ff]")} or ${holds(sql.literal("name"), format)}`.pipe(Effect.flatMap(Schema.decodeUnknown(Rows)))
  const values = sql.literal(pg ? "attributes::text" : "attributes")
  const marked = yield* sql`select id, organization_id from products
    where ${values} like '%<%' or ${values} like '%&%' or ${holds(values, format)}`.pipe(Effect.flatMap(Schema.decodeUnknown(Ids)))
  const byOrganization = new Map<string, Set<string>>()
  for (const row of [...renamed, ...marked]) {
    const ids = byOrganization.get(row.organizationId)
    if (ids === undefined) byOrganization.set(row.organizationId, new Set([row.id]))
    else ids.add(row.id)
  }
  if (byOrganization.size === 0) return
  // SQLite's trigram index rewrites a changed text's entries one product at a time; for many
  // products, it is made again in one pass instead (as migration 27 does).
  const [trigger] = !pg && renamed.length + marked.length > 1000
    ? yield* sql`select sql from sqlite_master where type = 'trigger' and name = 'products_fts_update'`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ sql: Schema.String }))))
    )
    : []
  if (trigger !== undefined) yield* sql.unsafe("DROP TRIGGER products_fts_update")
  for (const chunk of chunksOf(renamed, 500)) {
    const named = chunk.map((r) => ({ id: r.id, text: searchText([r.name]) }))
    yield* pg
      ? sql`update products set name_text = named.text
          from unnest(${named.map((n) => n.id)}::uuid[], ${named.map((n) => n.text)}::text[]) as named (id, text)
          where products.id = named.id`
      : Effect.forEach(named, (n) => sql`update products set name_text = ${n.text} where id = ${n.id}`, { discard: true })
  }
  for (const [organizationId, ids] of byOrganization) yield* refreshSearchText(sql, organizationId, [...ids])
  if (trigger !== undefined) {
    yield* sql.unsafe("INSERT INTO products_fts (products_fts) VALUES ('rebuild')")
    yield* sql.unsafe(trigger.sql)
  }
})
