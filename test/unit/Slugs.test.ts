import { describe, expect, it } from "vitest"
import { slugify } from "../../core/catalog/Text.js"

describe("slugs made from names", () => {
  it("strips diacritics and spells the Latin letters of their own in [a-z], instead of cutting them out", () => {
    expect(slugify("Café Crème")).toBe("cafe-creme")
    expect(slugify("Straße")).toBe("strasse")
    expect(slugify("Łódź Ørsted Æble Œuvre")).toBe("lodz-orsted-aeble-oeuvre")
    expect(slugify("Þórður Đorđe İstanbul ıspanak")).toBe("thordur-dorde-istanbul-ispanak")
  })

  it("is empty when nothing of the name is in [a-z0-9]", () => {
    expect(slugify("日本語の本")).toBe("")
    expect(slugify("❤️ !!")).toBe("")
  })
})
