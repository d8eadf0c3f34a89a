import { Schema } from "effect"
import { maxCharacters } from "../shared/Fields.js"
import { lowerWithoutDiacritics } from "./Text.js"

export const MAX_TAGS = 50
export const MAX_TAG_INPUT_LENGTH = 80
export const MAX_TAG_LENGTH = 60

/**
 * One tag by the seven steps of the specification, literally in order (so truncation after
 * trimming can leave a trailing `-`). Letters, digits and the marks that remain of every
 * script count as alphanumeric, so non-Latin tags survive. Empty means the tag is dropped.
 */
export const canonicalTag = (tag: string): string =>
  Array.from(
    lowerWithoutDiacritics(tag)
      .replace(/[^\p{L}\p{M}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
  ).slice(0, MAX_TAG_LENGTH).join("")

/** Canonical tags without empties and duplicates, in first-occurrence order. */
export const canonicalTags = (tags: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const tag of tags) {
    const canonical = canonicalTag(tag)
    if (canonical.length > 0) out.add(canonical)
  }
  return [...out]
}

/** Tags as written: at most 50, each 1 to 80 characters before canonicalization. */
export const TagsInput = Schema.Array(
  Schema.String.pipe(
    Schema.minLength(1, { message: () => "a tag must not be empty" }),
    maxCharacters(MAX_TAG_INPUT_LENGTH, `a tag must be at most ${MAX_TAG_INPUT_LENGTH} characters`)
  )
).pipe(Schema.maxItems(MAX_TAGS, { message: () => `at most ${MAX_TAGS} tags` }))
