import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { refreshFoldedTexts } from "../ProductIndexRefresh.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))
const Ids = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String }))

/**
 * The format characters found within words in practice: the soft hyphen, the zero-width
 * non-joiner and joiner, the direction marks, the word joiner and the byte order mark. Looking
 * for all of them (`WORD_FORMAT`) took SQLite 14 s at 100,000 products; these take under one.
 * A text with another one keeps its break until its product is written again.
 */
const FORMAT_IN_WORDS = ["\u00ad", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff"]

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
  const formatted = (column: ReturnType<typeof sql.literal>) => sql.or(FORMAT_IN_WORDS.map((c) => sql`${column} like ${`%${c}%`}`))
  const jamo = pg ? sql`search_text ~ ${"[\u1100-\u11ff]"}` : sql`search_text glob ${"*[\u1100-\u11ff]*"}`
  const renamed = yield* sql`select id, organization_id, name from products where ${jamo} or ${formatted(sql.literal("name"))}`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Rows))
  )
  const values = sql.literal(pg ? "attributes::text" : "attributes")
  const marked = yield* sql`select id, organization_id from products
    where ${values} like '%<%' or ${values} like '%&%' or ${formatted(values)}`.pipe(Effect.flatMap(Schema.decodeUnknown(Ids)))
  yield* refreshFoldedTexts(sql, renamed, marked)
})
