import { Schema } from "effect"
import { BoundedArray } from "../shared/Bounded.js"
import { lowerWithoutDiacritics } from "./Text.js"

export const MAX_TAGS = 50
const MAX_TAG_INPUT_LENGTH = 80
const MAX_TAG_LENGTH = 60

/**
 * A run of non-alphanumerics: characters that are neither letters, digits nor marks, each with
 * the marks that follow it (an emoji's skin or keycap mark), marks that open the text, and the
 * variation selectors, which only choose how the character before them is drawn (`1️⃣` is `1`,
 * U+FE0F, U+20E3). A mark counts as alphanumeric only as part of a letter or digit.
 */
const NON_ALPHANUMERIC = /(?:^\p{M}+|[^\p{L}\p{M}\p{N}]\p{M}*|[\uFE00-\uFE0F\u{E0100}-\u{E01EF}])+/gu

/**
 * One tag by the seven steps of the specification, literally in order (so truncation after
 * trimming can leave a trailing `-`). Letters, digits and the marks that remain on them, of
 * every script, count as alphanumeric, so non-Latin tags survive. Empty means the tag is dropped.
 */
export const canonicalTag = (tag: string): string =>
  Array.from(
    lowerWithoutDiacritics(tag)
      .replace(NON_ALPHANUMERIC, "-")
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

/**
 * Tags as written: at most 50, each 1 to 80 characters before canonicalization, counted
 * composed (NFC), as the tag is kept: `Crème` is five characters whether its `è` is sent as one
 * code point or as `e` and a combining grave.
 */
export const TagsInput = BoundedArray(
  Schema.String.pipe(
    Schema.minLength(1, { message: () => "a tag must not be empty" }),
    Schema.filter((s) => Array.from(s.normalize("NFC")).length <= MAX_TAG_INPUT_LENGTH, {
      message: () => `a tag must be at most ${MAX_TAG_INPUT_LENGTH} characters`,
      description: `at most ${MAX_TAG_INPUT_LENGTH} characters, counted composed (NFC)`,
      jsonSchema: { maxLength: MAX_TAG_INPUT_LENGTH }
    })
  ),
  MAX_TAGS,
  `at most ${MAX_TAGS} tags`
)
