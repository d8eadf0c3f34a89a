/**
 * Lower-case, without any combining mark: what slugs (which keep only `[a-z0-9]`) and search
 * text (compared only with text folded the same way) are made from. Composed again (NFC) once
 * the marks are gone: a Hangul syllable is its letters when decomposed (`각` is `ᄀ`, `ᅡ`, `ᆨ`),
 * none of them a mark, and `가` is no part of `각`.
 */
const foldText = (s: string): string => s.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC")

/**
 * Diacritics: the marks of the combining diacritical blocks, which Latin, Greek and Cyrillic
 * letters take, the Hebrew points and accents and the Arabic vowel points. Marks a script spells
 * with (Devanagari vowel signs and viramas, the Japanese voicing marks, Thai vowels, the Cyrillic
 * titlo) are not diacritics and stay.
 */
const DIACRITICS = /(?=\p{M})[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05c7\u064b-\u065f\u0670]/gu

/** Lower-case and without diacritics, composed again (NFC): the first two steps of a tag. */
export const lowerWithoutDiacritics = (s: string): string =>
  s.toLowerCase().normalize("NFD").replace(DIACRITICS, "").normalize("NFC")

/** Latin letters that are letters of their own, not letters with a diacritic, spelled in `[a-z]`. */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  "ß": "ss", "ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t"
}

/** Folded text with the Latin letters of their own spelled in `[a-z]`. */
const LATIN_LETTER = new RegExp(`[${Object.keys(LATIN_LETTERS).join("")}]`, "g")
const spellLatin = (folded: string): string => folded.replace(LATIN_LETTER, (c) => LATIN_LETTERS[c] ?? c)

/**
 * Letters and digits written in a compatibility form spelled plainly (NFKC): full-width
 * `Ｋｅｔｔｌｅ` is `Kettle`, the ligature `ﬁ` is `fi`, `m²` is `m2`, `ſ` is `s`. Symbols keep
 * their form, as NFKC would make some of them letters of the word before: `Acme™` stays
 * `Acme™`, not `AcmeTM`. Runs are taken at most 65,536 characters at a time (as are the runs
 * `searchText` parts words at): matched with `+` in Unicode mode, a run of millions in one value
 * overflowed the regular expression engine's stack, and the write answered 500.
 */
export const plainLetters = (s: string): string => s.replace(/[\p{L}\p{M}\p{N}]{1,65536}/gu, (run) => run.normalize("NFKC"))

/**
 * A slug made from a name: invisible format characters dropped (the soft hyphen, the zero-width
 * space, joiner and non-joiner, the word joiner, the byte order mark: `Wasser&shy;kocher` →
 * `wasserkocher`), compatibility forms spelled plainly (`plainLetters`: `ＡＢＣ` → `abc`, `ﬁne` →
 * `fine`), folded, the Latin letters of their own spelled in `[a-z]` (`Straße` → `strasse`,
 * `Łódź` → `lodz`), every run of characters outside `[a-z0-9]` replaced by `-`, trimmed of `-`,
 * at most 80 characters. Empty when the name has no letter or digit in `[a-z0-9]`.
 */
export const slugify = (name: string): string =>
  spellLatin(foldText(plainLetters(name.replace(/\p{Cf}/gu, "")))).replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80).replace(/-+$/, "")

/**
 * Invisible format characters that do not part words: the soft hyphen (`Wasser&shy;kocher`),
 * the zero-width joiner and non-joiner, the word joiner, the byte order mark, direction marks.
 * The zero-width space parts words, as any other character that is no letter or digit.
 */
export const WORD_FORMAT = /(?!\u200b)\p{Cf}/gu

/**
 * Folded words separated by single spaces, padded with one space: what search compares. The
 * Latin letters of their own are spelled as slugs spell them (`straße` is found by `strasse`,
 * `łódź` by `lodz`), and the Greek final sigma is a sigma, as lower-casing writes one or the
 * other by its neighbours (`ΟΔΟΣ'Α`, `οδος`). Invisible format characters are dropped
 * (`WORD_FORMAT`), not read as a break, and compatibility forms are spelled plainly
 * (`plainLetters`: `Ｋｅｔｔｌｅ` is found by `kettle`, and `kettle` by `ｋｅｔｔｌｅ`).
 */
export const searchText = (parts: ReadonlyArray<string>): string => {
  const words = spellLatin(foldText(plainLetters(parts.join(" ").replace(WORD_FORMAT, "")))).replace(/ς/g, "σ").replace(/[^\p{L}\p{N}]{1,65536}/gu, " ").replace(/ {2,}/g, " ").trim()
  return words.length === 0 ? "" : ` ${words} `
}

/**
 * What a name is compared by when case and spacing do not count: composed (NFC), trimmed, each
 * run of white space one space, and folded in every script. `Acme`, ` ACME` and `acme ` are
 * one brand. Folding lower-cases what upper-casing made of the lower-case spelling, so two
 * names written the same in capitals are one: `Straße`, `STRASSE` and `STRAẞE` (`strasse`);
 * the Greek final sigma is a sigma, which lower-casing writes by its neighbours (`ΟΔΟΣ'Α` is
 * `οδοσ'α`, `οδος'α` too). Composed again, as upper-casing may decompose (`ΐ`). Compatibility
 * forms are spelled plainly (`plainLetters`: `Ａｃｍｅ` is `Acme`) and invisible format characters
 * dropped, the zero-width space too, as slugs drop them: names that look alike are one
 * (`Ac&shy;me` and `Acme&#8203;` are `Acme`), where search reads a zero-width space as a break.
 */
export const caseKey = (name: string): string =>
  plainLetters(name.replace(/\p{Cf}/gu, "")).normalize("NFC").trim().replace(/\s+/gu, " ").toLowerCase().toUpperCase().toLowerCase().replace(/ς/g, "σ").normalize("NFC")
