import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

/** Query trigrams per word, padded with one space each side as the stored search text is. */
export const queryTrigrams = (folded: string, max = 48): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const word of folded.split(" ").filter((w) => w.length > 0)) {
    const padded = ` ${word} `
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3))
  }
  return [...out].slice(0, max)
}

/** Share of the query's trigrams a match must contain (SQLite); Postgres uses word_similarity. */
export const MIN_TRIGRAM_SHARE = 0.5

/**
 * The search condition and its score, per dialect. Postgres: full-text match or trigram word
 * similarity (`<%`, both served by GIN indexes), scored by ts_rank plus word_similarity.
 * SQLite: candidates from the FTS5 trigram index (any query trigram), kept when they contain at
 * least half the query's trigrams, scored by how many they contain. Both find prefixes and
 * one-letter typos.
 */
export const searchOf = (sql: SqlClient.SqlClient, folded: string): { readonly where: Fragment; readonly score: Fragment } =>
  sql.onDialectOrElse({
    pg: () => ({
      where: sql`(p.search_vector @@ plainto_tsquery('simple', ${folded}) or ${folded} <% p.search_text)`,
      score: sql`(ts_rank(p.search_vector, plainto_tsquery('simple', ${folded})) + word_similarity(${folded}, p.search_text))`
    }),
    orElse: () => {
      const grams = queryTrigrams(folded)
      const score = sql.join(" + ", true, "0")(grams.map((g) => sql`(instr(p.search_text, ${g}) > 0)`))
      const needed = Math.max(1, Math.ceil(grams.length * MIN_TRIGRAM_SHARE))
      const match = grams.map((g) => `"${g}"`).join(" OR ")
      return {
        where: sql`(p.seq in (select rowid from products_fts where products_fts match ${match}) and ${score} >= ${needed})`,
        score
      }
    }
  })

/** Postgres: the word-similarity threshold of `<%` for this transaction, matching SQLite's share. */
export const prepareSearch = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => sql`select set_config('pg_trgm.word_similarity_threshold', ${String(MIN_TRIGRAM_SHARE)}, true)`,
    orElse: () => sql`select 1`
  })
