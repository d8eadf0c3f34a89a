import { describe, expect, it } from "vitest"
import { slugCandidates } from "../../core/catalog/Slugs.js"
import { slugify } from "../../core/catalog/Text.js"

describe("slugs made from names", () => {
  it("strips diacritics and spells the Latin letters of their own in [a-z], instead of cutting them out", () => {
    expect(slugify("Café Crème")).toBe("cafe-creme")
    expect(slugify("Straße")).toBe("strasse")
    expect(slugify("Łódź Ørsted Æble Œuvre")).toBe("lodz-orsted-aeble-oeuvre")
    expect(slugify("Þórður Đorđe İstanbul ıspanak")).toBe("thordur-dorde-istanbul-ispanak")
  })

  it("drops invisible format characters instead of parting the word at them", () => {
    expect(slugify("Wasser\u00ADkocher")).toBe("wasserkocher")
    expect(slugify("Zero\u200Bwidth Join\u200C\u200Der Word\u2060joiner \uFEFFBom")).toBe("zerowidth-joiner-wordjoiner-bom")
  })

  it("spells compatibility forms plainly: full-width letters and digits, ligatures, super- and subscripts", () => {
    expect(slugify("Ｋｅｔｔｌｅ ２０００")).toBe("kettle-2000")
    expect(slugify("ﬁne ﬂour")).toBe("fine-flour")
    expect(slugify("H₂O 10 m²")).toBe("h2o-10-m2")
    // A symbol stays a symbol, not letters of the word before it.
    expect(slugify("Acme™ Kettle")).toBe("acme-kettle")
  })

  it("is empty when nothing of the name is in [a-z0-9]", () => {
    expect(slugify("日本語の本")).toBe("")
    expect(slugify("❤️ !!")).toBe("")
  })
})

describe("slugs tried for a record written without one", () => {
  it("never joins a cut name to the id with two hyphens", () => {
    const id = "01a21ed2-a3d3-76ee-b49a-35066eec9a94"
    // The name's slug has a hyphen at the 71st character and at the 41st, where the candidates cut it.
    const [, suffixed, last] = slugCandidates(`${"x".repeat(39)} ${"y".repeat(30)} z`, id, "page")
    expect(suffixed).toBe(`${"x".repeat(39)}-${"y".repeat(30)}-6eec9a94`)
    expect(last).toBe(`${"x".repeat(39)}-${id}`)
  })
})
