/** Lower-case, without diacritics: the first two steps shared by tags, slugs and search text. */
export const foldText = (s: string): string => s.toLowerCase().normalize("NFD").replace(/\p{M}+/gu, "")

/**
 * A slug made from a name: folded, every run of characters outside `[a-z0-9]` replaced by
 * `-`, trimmed of `-`, at most 80 characters. Empty when the name has no letter or digit.
 */
export const slugify = (name: string): string =>
  foldText(name).replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80).replace(/-+$/, "")

/** Folded words separated by single spaces, padded with one space: what search compares. */
export const searchText = (parts: ReadonlyArray<string>): string => {
  const words = foldText(parts.join(" ")).replace(/[^\p{L}\p{N}]+/gu, " ").trim()
  return words.length === 0 ? "" : ` ${words} `
}

/** What a name is compared by when case does not count: composed (NFC), then lower-cased, in every script. */
export const caseKey = (name: string): string => name.normalize("NFC").toLowerCase()
