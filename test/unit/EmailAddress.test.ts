import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { validateValue } from "../../core/schema/AttributeValues.js"
import { isEmailAddress } from "../../core/shared/Fields.js"
import { InitialAdmin } from "../../core/tenancy/Organization.js"

const asValue = (s: string) =>
  Either.isRight(validateValue({ code: "e", type: "email", isLocalizable: false, isScopable: false, validation: null }, s, ["v"]))
const asInvite = (s: string) => Either.isRight(Schema.decodeUnknownEither(InitialAdmin)({ email: s }))

describe("email addresses", () => {
  const refused = ["a@b", "a b@c.d", "a@b..c", "a@.b.c", "a@b.c.", "@b.c", "a@b@c.d", "a\u0001@b.c", "a@b.c\u007f", "a@b\u0085.c"]

  it("refuses addresses without a dotted domain, with white space or control characters", () => {
    for (const s of refused) expect(isEmailAddress(s), s).toBe(false)
    expect(isEmailAddress("ops+pim@shop.example.com")).toBe(true)
  })

  it("attribute values and invites accept exactly the same addresses", () => {
    fc.assert(fc.property(fc.oneof(fc.emailAddress(), fc.string(), fc.constantFrom(...refused)), (s) => {
      expect(asValue(s)).toBe(isEmailAddress(s))
      expect(asInvite(s)).toBe(isEmailAddress(s) && s.length <= 254)
    }))
  })

  it("answers a long invalid address in linear time", () => {
    expect(isEmailAddress(`a@${"a.".repeat(100_000)} `)).toBe(false)
  })

  it("answers a domain of millions of labels", () => {
    expect(isEmailAddress(`a@${"b.".repeat(4_000_000)}`)).toBe(false)
    expect(isEmailAddress(`a@${"b.".repeat(4_000_000)}c`)).toBe(true)
  })

  it("reads as the one expression it replaces", () => {
    const EXPRESSION = /^[^\s@\p{Cc}]+@[^\s@.\p{Cc}]+(?:\.[^\s@.\p{Cc}]+)+$/u
    const parts = fc.constantFrom("a", "b", ".", "@", " ", "\u0001", "\u0085", "é", "+")
    fc.assert(fc.property(fc.array(parts, { maxLength: 12 }).map((p) => p.join("")), (s) => {
      expect(isEmailAddress(s), s).toBe(EXPRESSION.test(s))
    }), { numRuns: 2000 })
  })
})
