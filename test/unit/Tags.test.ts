import { describe, expect, it } from "vitest"
import { Either, Schema } from "effect"
import { canonicalTag, canonicalTags, TagsInput } from "../../core/catalog/Tags.js"

describe("tag canonicalization", () => {
  it("lower-cases, strips diacritics, joins runs of other characters with -, and trims", () => {
    expect(canonicalTag("  --Café Crème, Été!--")).toBe("cafe-creme-ete")
    expect(canonicalTag("Ñandú Ωμέγα Йогурт Phở")).toBe("nandu-ωμεγα-иогурт-pho")
    expect(canonicalTag("שָׁלוֹם مُحَمَّد")).toBe("שלום-محمد")
  })

  it("keeps the marks a script spells with, composed, so non-Latin tags keep their words", () => {
    expect(canonicalTag("हिन्दी")).toBe("हिन्दी")
    expect(canonicalTag("ガイド")).toBe("ガイド")
    expect(canonicalTag("한국 ไทย")).toBe("한국-ไทย")
    expect(canonicalTag("한국")).toHaveLength(2)
    // Only the combining diacritical blocks and the Hebrew and Arabic points are diacritics: the
    // Cyrillic titlo (U+0483) stays, the Hebrew cantillation (U+0591) goes with the vowel points.
    expect(canonicalTag("Б\u0483г")).toBe("б\u0483г")
    expect(canonicalTag("\u05d0\u05b8\u0591")).toBe("\u05d0")
  })

  it("takes a mark on a symbol as part of the symbol, so an emoji leaves no invisible tag", () => {
    expect(canonicalTag("❤️")).toBe("")
    expect(canonicalTag("sale ❤️")).toBe("sale")
    expect(canonicalTag("1️⃣ top")).toBe("1-top")
    expect(canonicalTag("👍🏽 ok")).toBe("ok")
    expect(canonicalTag("\u0301abc")).toBe("abc")
    expect(canonicalTags(["❤️", "⭐️", "ok ✔️"])).toEqual(["ok"])
  })

  it("truncates to 60 composed characters, after trimming, as the steps are ordered", () => {
    expect(canonicalTag("가".repeat(70))).toBe("가".repeat(60))
    expect(canonicalTag(`${"a".repeat(59)} b`)).toBe(`${"a".repeat(59)}-`)
  })

  it("drops tags that become empty and keeps the first of duplicates", () => {
    expect(canonicalTags(["Summer Sale", "!!!", "summer-sale", "SUMMER sale", "Été"])).toEqual(["summer-sale", "ete"])
  })

  it("counts the 80 characters of a tag as written composed, in code points, not UTF-16 units", () => {
    const accepts = (tag: string) => Either.isRight(Schema.decodeUnknownEither(TagsInput)([tag]))
    expect(accepts("e\u0301".repeat(80))).toBe(true)
    expect(accepts("e\u0301".repeat(81))).toBe(false)
    expect(accepts("😀".repeat(80))).toBe(true)
    expect(accepts("😀".repeat(81))).toBe(false)
    expect(accepts("")).toBe(false)
  })
})
