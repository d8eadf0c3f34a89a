import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { nearCandidates, oneEditPatterns, TYPO_MAX_LENGTH, TYPO_MIN_LENGTH } from "../../adapters/sql/ProductSearch.js"

// A small alphabet, so that words repeat letters and texts hold many near matches.
const letters = fc.constantFrom("a", "b", "c", "e", "k", "t")
const word = fc.array(letters, { minLength: TYPO_MIN_LENGTH, maxLength: 12 }).map((cs) => cs.join(""))

describe("nearCandidates", () => {
  it("names something every near miss at a word start contains", () => {
    fc.assert(
      fc.property(word, fc.nat(), letters, fc.array(letters, { maxLength: 4 }), fc.constantFrom(3, 4), (w, pick, filler, rest, shortestHalf) => {
        const patterns = oneEditPatterns(w)
        // A text with one near miss of `w` at a word start, the wildcard filled, letters around it.
        const nearMiss = ` ${patterns[pick % patterns.length]!.replace("?", filler)}${rest.join("")} `
        const text = ` other${nearMiss}words `
        const candidates = nearCandidates(w, shortestHalf)
        expect(candidates.every((all) => all.length > 0 && all.every((piece) => piece.length >= 3))).toBe(true)
        const covered = candidates.some((all) => all.every((piece) => text.includes(piece)))
        expect(covered, `${w} in ${JSON.stringify(text)}`).toBe(true)
      }),
      { numRuns: 2_000 }
    )
  })

  it("stands a half long enough for the near misses that keep it, and names the rest by parts", () => {
    expect(nearCandidates("waterproof", 4).slice(0, 2)).toEqual([[" water"], ["proof"]])
    expect(nearCandidates("jacket", 3)).toEqual([[" jac"], ["ket"], [" jakcet"]])
    // " jac" stands for its near misses; those that keep only "ket" are named by their own parts.
    const jacket = nearCandidates("jacket", 4)
    expect(jacket[0]).toEqual([" jac"])
    expect(jacket.some((all) => all.length === 1 && all[0] === "ket")).toBe(false)
    expect(jacket).toContainEqual([" jcket"])
    expect(jacket).toContainEqual([" ja", "ket"])
    expect(nearCandidates("x".repeat(TYPO_MAX_LENGTH), 4).length).toBeGreaterThan(0)
  })
})
