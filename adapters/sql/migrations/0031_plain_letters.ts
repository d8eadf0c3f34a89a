import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { plainLetters } from "../../../core/catalog/Text.js"
import { refreshFoldedTexts, type Renamed } from "../ProductIndexRefresh.js"
import { writeNameKeys } from "./NameKeys.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String, valueText: Schema.String }))

/** Every compatibility form is past U+00A9; a text with nothing past it folds as it did. */
const PAST_A9 = "[^\u0001-\u00a9]"

/** Whether `text` holds a letter or digit in a compatibility form (or is not composed), which folding now spells otherwise. */
const respelled = (text: string) => plainLetters(text) !== text

/** Products read at a time, so that a large catalog's values are never all held at once. */
const PAGE = 2000

/**
 * Search text, folded names and the name keys of brands and categories now spell letters and
 * digits in a compatibility form plainly (`plainLetters`: full-width `Ｋｅｔｔｌｅ` is `kettle`,
 * `ﬁ` is `fi`, `²` is `2`), and name keys drop invisible format characters as search text does.
 * The products whose name or values hold a character past U+00A9 are read a page at a time;
 * those whose name holds a compatibility form get their folded name and search text made
 * again, those whose values hold one their search text where it changes. Every brand's and
 * category's name key is written again, cleared first as in migration 28. Slugs stay as they
 * are: they are lookups clients may hold.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const values = sql.literal(pg ? "attributes::text" : "attributes")
  const past = (column: ReturnType<typeof sql.literal>) => pg ? sql`${column} ~ ${PAST_A9}` : sql`${column} glob ${`*${PAST_A9}*`}`
  const renamed: Array<Renamed> = []
  const revalued: Array<{ readonly id: string; readonly organizationId: string }> = []
  let after: string | undefined
  for (;;) {
    const page = yield* sql`select id, organization_id, name, ${values} as value_text from products
      where ${sql.and([sql.or([past(sql.literal("name")), past(values)]), ...(after === undefined ? [] : [sql`id > ${after}`])])}
      order by id limit ${PAGE}`.pipe(Effect.flatMap(Schema.decodeUnknown(Rows)))
    for (const row of page) {
      if (respelled(row.name)) renamed.push({ id: row.id, organizationId: row.organizationId, name: row.name })
      else if (respelled(row.valueText)) revalued.push({ id: row.id, organizationId: row.organizationId })
    }
    after = page.at(-1)?.id
    if (page.length < PAGE) break
  }
  yield* refreshFoldedTexts(sql, renamed, revalued)
  for (const table of ["brands", "categories"] as const) {
    yield* sql`update ${sql(table)} set name_key = id`
    yield* writeNameKeys(table)
  }
})
