import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"

/**
 * Search semantics (both dialects). The query is folded words; the stored search text is folded
 * words padded with spaces (see `searchText`). For each query word `w`:
 * - exact: the text contains `w` as a substring (a whole word, a prefix or a part of a word);
 * - near miss, for words of `TYPO_MIN_LENGTH` to `TYPO_MAX_LENGTH` characters: some word of the text starts
 *   with a string one edit away from `w` (one letter inserted, deleted or replaced, or two
 *   neighbours swapped), so "kettel" finds "kettle" and "wirelss" finds "wireless".
 * A product matches when every word matches exactly or as a near miss. Relevance has three
 * tiers: products whose name holds every word exactly, then those whose text does, then the
 * near misses; ties in creation order (SQLite: insertion order, Postgres: the time-ordered id).
 */
export const TYPO_MIN_LENGTH = 5
/** Past this no word is mistyped by one letter; the patterns of a longer one only cost a scan. */
export const TYPO_MAX_LENGTH = 32

const words = (folded: string) => folded.split(" ").filter((w) => w.length > 0)

/**
 * A word's characters: code points, as the trigram index, `GLOB`, `LIKE` and the regular
 * expression count them, not UTF-16 units (a letter outside the Basic Multilingual Plane, as
 * `𠀀`, is one character of a word, not two).
 */
const charsOf = (w: string): ReadonlyArray<string> => Array.from(w)

/** The texts one edit away from `w`, with `?` for any one character but a space. */
export const oneEditPatterns = (word: string): ReadonlyArray<string> => {
  const w = charsOf(word)
  const at = (from: number, to?: number) => w.slice(from, to).join("")
  const out = new Set<string>()
  for (let i = 0; i < w.length; i++) {
    out.add(at(0, i) + at(i + 1))
    out.add(`${at(0, i)}?${at(i + 1)}`)
    out.add(`${at(0, i)}?${at(i)}`)
    if (i + 1 < w.length && w[i] !== w[i + 1]) out.add(at(0, i) + w[i + 1] + w[i] + at(i + 2))
  }
  return [...out]
}

/**
 * What a near miss of `w` at a word start contains: alternatives, each a few strings found
 * together. One edit leaves one half of ` w` intact, and that half stands for every near miss
 * that keeps it. A half shorter than `shortestHalf` is not used: the near misses that keep
 * only such a half are named by their own fixed parts instead (the pieces around the edited
 * character of three characters or more; each near miss of a word of 5 characters or more
 * has one). A half of three characters is one trigram, found in far too many texts.
 */
export const nearCandidates = (w: string, shortestHalf: number): ReadonlyArray<ReadonlyArray<string>> => {
  const padded = charsOf(` ${w}`)
  const m = Math.ceil(padded.length / 2)
  const halves = [padded.slice(0, m), padded.slice(m)].filter((h) => h.length >= shortestHalf).map((h) => h.join(""))
  const out = new Map<string, ReadonlyArray<string>>(halves.map((h) => [h, [h]]))
  for (const pattern of oneEditPatterns(w)) {
    const pieces = ` ${pattern}`.split("?")
    if (halves.some((h) => pieces.some((piece) => piece.includes(h)))) continue
    const fixed = pieces.filter((piece) => charsOf(piece).length >= 3)
    out.set(fixed.join("?"), fixed)
  }
  return [...out.values()]
}

const phrase = (s: string) => `"${s}"`
const typos = (w: string) => charsOf(w).length >= TYPO_MIN_LENGTH && charsOf(w).length <= TYPO_MAX_LENGTH

/** One relevance tier of the list: its rows, read in tier order. */
export interface SearchTier {
  readonly from: Fragment
  readonly where: Fragment
  readonly order: Fragment
}

export interface Search {
  /** Every match, for filters, counts and facets. */
  readonly where: Fragment
  /** The matches by relevance: disjoint, best first. */
  readonly tiers: ReadonlyArray<SearchTier>
}

/**
 * The products a query with `filter` reads, as `p`. On Postgres a search reads them through
 * the `tenant_products` view (see its migration): under row-level security its `LIKE` and
 * regular expression could use neither the trigram index nor the statistics.
 */
export const productsOf = (sql: SqlClient.SqlClient, filter: { readonly search?: string | undefined }): Fragment =>
  filter.search === undefined ? sql`products p` : sql.onDialectOrElse({ pg: () => sql`tenant_products p`, orElse: () => sql`products p` })

export const searchOf = (sql: SqlClient.SqlClient, folded: string): Search => {
  const ws = words(folded)
  return sql.onDialectOrElse({
    pg: () => {
      const exact = (w: string) => sql`p.search_text like ${`%${w}%`}`
      // The regular expression alone is too loose for the trigram index; the candidates that
      // every near miss contains are not, so the index finds the rows the expression checks.
      // Postgres scans for a common word and checks the candidates on every row it reads, so
      // the halves, however short, cost less there than the many parts that replace them.
      const near = (w: string) =>
        sql`(${sql.or(nearCandidates(w, 3).map((all) => sql.and(all.map((c) => sql`p.search_text like ${`%${c}%`}`))))} and p.search_text ~ ${
          ` (${oneEditPatterns(w).map((p) => p.replaceAll("?", "[^ ]")).join("|")})`
        })`
      const all = sql.and(ws.map(exact))
      const named = sql.and(ws.map((w) => sql`p.name_text like ${`%${w}%`}`))
      const where = sql.and(ws.map((w) => (typos(w) ? sql`(${exact(w)} or ${near(w)})` : exact(w))))
      const tier = (condition: Fragment): SearchTier => ({ from: sql`tenant_products p`, where: condition, order: sql`p.id` })
      const exactTiers = [tier(sql`${all} and ${named}`), tier(sql`${all} and not (${named})`)]
      return { where, tiers: ws.some(typos) ? [...exactTiers, tier(sql`${where} and not (${all})`)] : exactTiers }
    },
    orElse: () => {
      // FTS5 trigram phrases need three characters; shorter words are checked on the row.
      const indexed = ws.filter((w) => charsOf(w).length >= 3)
      const shortWords = ws.filter((w) => charsOf(w).length < 3)
      const short = shortWords.map((w) => sql`instr(p.search_text, ${w}) > 0`)
      const namedShort = shortWords.map((w) => sql`instr(p.name_text, ${w}) > 0`)
      // A near miss without a wildcard is a plain substring, which `instr` finds far faster than
      // `GLOB` (those are checked first); the others need `GLOB`.
      const glob = (w: string) => {
        const patterns = oneEditPatterns(w)
        return sql.or([
          ...patterns.filter((p) => !p.includes("?")).map((p) => sql`instr(p.search_text, ${` ${p}`}) > 0`),
          ...patterns.filter((p) => p.includes("?")).map((p) => sql`p.search_text glob ${`* ${p.replaceAll("?", "[^ ]")}*`}`)
        ])
      }
      const exactAll = indexed.map((w) => phrase(w)).join(" AND ")
      const anyAll = indexed
        .map((w) => `(${[phrase(w), ...(typos(w) ? nearCandidates(w, 4).map((all) => `(${all.map(phrase).join(" AND ")})`) : [])].join(" OR ")})`)
        .join(" AND ")
      const verified = indexed.filter(typos).map((w) => sql`(instr(p.search_text, ${w}) > 0 or ${glob(w)})`)
      const tier = (match: string, rest: ReadonlyArray<Fragment>): SearchTier => ({
        from: sql`products_fts f join products p on p.seq = f.rowid`,
        where: sql.and([sql`f.products_fts match ${match}`, ...rest]),
        order: sql`f.rowid`
      })
      if (indexed.length === 0) {
        const where = sql.and(short)
        const rows = (condition: Fragment): SearchTier => ({ from: sql`products p`, where: condition, order: sql`p.seq` })
        return { where, tiers: [rows(sql.and([...short, ...namedShort])), rows(sql`${where} and not (${sql.and(namedShort)})`)] }
      }
      const where = sql.and([sql`p.seq in (select rowid from products_fts where products_fts match ${anyAll})`, ...verified, ...short])
      // The name tier reads the name column alone; the text tier the products it left, which
      // the index leaves out itself unless a short word, checked on the row, decides.
      const named = `name_text : (${exactAll})`
      const exactTiers = [
        tier(named, namedShort),
        short.length === 0
          ? tier(`(${exactAll}) NOT ${named}`, [])
          : tier(exactAll, [...short, sql`not (p.seq in (select rowid from products_fts where products_fts match ${named}) and ${sql.and(namedShort)})`])
      ]
      return {
        where,
        tiers: indexed.some(typos) ? [...exactTiers, tier(`(${anyAll}) NOT (${exactAll})`, [...verified, ...short])] : exactTiers
      }
    }
  })
}
