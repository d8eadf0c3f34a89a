import { Effect } from "effect"
import { slugify } from "./Text.js"

/**
 * The slugs tried, in order, for a record written without one: from its name (or `fallback`
 * when the name has no letter or digit), then with a suffix from its id, then one with the
 * whole id, which no other record can hold. None is longer than 80 characters.
 */
export const slugCandidates = (name: string, id: string, fallback: string): readonly [string, string, string] => {
  const base = slugify(name) || fallback
  // A cut that ends at a hyphen between two words keeps one hyphen before the id, not two.
  const cut = (length: number) => base.slice(0, length).replace(/-+$/, "")
  return [base, `${cut(71)}-${id.replace(/-/g, "").slice(-8)}`, `${cut(40)}-${id}`]
}

/** The first free slug of `slugCandidates`, asking `taken` which of the first two are used. */
export const freeSlug = (
  name: string,
  id: string,
  fallback: string,
  taken: (slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
) =>
  Effect.gen(function*() {
    const [base, suffixed, last] = slugCandidates(name, id, fallback)
    const used = yield* taken([base, suffixed])
    return !used.has(base) ? base : !used.has(suffixed) ? suffixed : last
  })
