import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import {
  type AttributeSpec,
  type AttributeType,
  isFilled,
  validateAttributeValues,
  validateValue
} from "../../core/schema/AttributeValues.js"
import { mergeValues, missingRequired } from "../../core/products/ProductValues.js"
import { compareDecimals } from "../../core/schema/ValueValidators.js"
import { toUtcText } from "../../core/shared/Calendar.js"

const spec = (type: AttributeType, validation: Record<string, unknown> | null = null, more: Partial<AttributeSpec> = {}): AttributeSpec => ({
  code: "attr",
  type,
  isLocalizable: false,
  isScopable: false,
  validation,
  ...more
})

const check = (s: AttributeSpec, value: unknown) => validateValue(s, value, ["v"])
const ok = (s: AttributeSpec, value: unknown) => {
  const r = check(s, value)
  if (Either.isLeft(r)) throw new Error(`expected ${JSON.stringify(value)} to pass as ${s.type}: ${JSON.stringify(r.left)}`)
  return r.right
}
const issuesOf = (s: AttributeSpec, value: unknown) => {
  const r = check(s, value)
  if (Either.isRight(r)) throw new Error(`expected ${JSON.stringify(value)} to fail as ${s.type}`)
  return r.left
}

/** Valid and invalid values of every type, without validation rules. */
const CASES: Record<AttributeType, { valid: ReadonlyArray<unknown>; invalid: ReadonlyArray<unknown> }> = {
  text: { valid: ["", "Blue", "ünïcödé"], invalid: [3, true, ["a"], {}] },
  textarea: { valid: ["line\nline"], invalid: [1.5, {}] },
  richtext: { valid: ["<p>Hi</p>"], invalid: [false, []] },
  number: { valid: [0, -3, 1.5, 1e300], invalid: ["3", "three", true, {}] },
  decimal: { valid: ["12.50", "-0.1", "7", 12.5], invalid: ["12,50", "1e3", "abc", "", true, {}, "1."] },
  boolean: { valid: [true, false], invalid: ["true", 0, 1] },
  date: { valid: ["2024-02-29", "1999-12-31"], invalid: ["2023-02-29", "2024-13-01", "2024-1-1", "2024-01-01T00:00:00Z", 20240101] },
  datetime: { valid: ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00.123+02:00", "2024-01-01T10:00Z"], invalid: ["2024-01-01", "2024-01-01T10:00:00", "yesterday", 0] },
  select: { valid: ["red"], invalid: [["red"], 1] },
  multiselect: { valid: [[], ["red", "blue"]], invalid: ["red", [1], [null], ["red", "blue", "red"]] },
  reference: { valid: ["0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b"], invalid: ["not-a-uuid", 12, ""] },
  media: { valid: ["0190A5B4-1C2D-7E3F-8A9B-0C1D2E3F4A5B"], invalid: ["abc", {}] },
  measurement: {
    valid: [{ amount: 1.5, unit: "kg" }, { amount: 0, unit: "cm" }],
    invalid: [{ amount: "heavy", unit: "kg" }, { amount: 1 }, { unit: "kg" }, { amount: 1, unit: "" }, { amount: 1, unit: "kg", extra: 1 }, 1.5, "1.5kg"]
  },
  url: { valid: ["https://example.com/a?b=c", "http://localhost:8080"], invalid: ["ftp://example.com", "example.com", "/relative", "javascript:alert(1)", 1,
    "http:/example.com", "https:example.com", "https://example.com/a b", " https://example.com", "https://example.com/\t",
    // The parser reads a backslash as a slash: this one leads to example.com, not evil.example.
    "https://example.com\\@evil.example/", "https:\\\\example.com/"] },
  email: {
    valid: ["a@example.com", "first.last@mail.example.co.uk"],
    // The last would backtrack for seconds under a pattern that lets dots be anywhere.
    invalid: ["a@b", "not an email", "@example.com", 3, "a@b..c", "a@.b.c", "a@b.c.", `a@${"a.".repeat(40_000)} `]
  },
  json: { valid: [null, 1, "s", true, [1, { a: [null] }], { nested: { deep: [1, "2"] } }], invalid: [Number.NaN, Number.POSITIVE_INFINITY, [Number.NaN], { a: undefined }] },
  money: {
    valid: [{ amount_cents: 1999, currency: "EUR" }, { amount_cents: -5, currency: "USD" }, { amount_cents: 1, currency: "XAU" }],
    invalid: [{ amount_cents: 19.99, currency: "EUR" }, 19.99, { amount_cents: 1999 }, { amount_cents: 1999, currency: "eur" }, { amount_cents: 1999, currency: "EURO" },
      { amount_cents: 1999, currency: "ZZZ" }, { amount_cents: 1999, currency: "ABC" }, { amount_cents: "1999", currency: "EUR" }, { amount_cents: 1, currency: "EUR", x: 1 }]
  },
  tags: { valid: [[], ["a", "b"]], invalid: ["a", [""], [1]] },
  file: { valid: ["0190a5b4-1c2d-7e3f-8a9b-0c1d2e3f4a5b"], invalid: ["file.pdf", 42] }
}

describe("value validators", () => {
  for (const [type, { invalid, valid }] of Object.entries(CASES) as Array<[AttributeType, (typeof CASES)[AttributeType]]>) {
    it(`${type}: accepts valid values and refuses invalid ones at the value's path`, () => {
      for (const v of valid) ok(spec(type), v)
      for (const v of invalid) {
        const issues = issuesOf(spec(type), v)
        expect(issues.length).toBeGreaterThan(0)
        for (const i of issues) expect(i.path.slice(0, 1)).toEqual(["v"])
      }
    })
  }

  it("normalizes a decimal sent as a JSON number to a plain decimal string", () => {
    expect(ok(spec("decimal"), 12.5)).toBe("12.5")
    expect(ok(spec("decimal"), 1e21)).toBe("1000000000000000000000")
    // The digits as written, not the binary double's exact value (1e23 is 99999999999999991611392).
    expect(ok(spec("decimal"), 1e23)).toBe(`1${"0".repeat(23)}`)
    expect(ok(spec("decimal"), -1.2345e25)).toBe(`-12345${"0".repeat(21)}`)
    expect(ok(spec("decimal"), 1e308)).toBe(`1${"0".repeat(308)}`)
    expect(ok(spec("decimal"), 1e-7)).toBe("0.0000001")
    expect(ok(spec("decimal"), -1.25e-10)).toBe("-0.000000000125")
    expect(ok(spec("decimal"), "12.50")).toBe("12.50")
    expect(["-0", "-0.00", "007.50", "-01", "0.5", "-0.05", "00"].map((s) => ok(spec("decimal"), s))).toEqual(["0", "0.00", "7.50", "-1", "0.5", "-0.05", "0"])
    expect(ok(spec("decimal"), -0)).toBe("0")
    expect(issuesOf(spec("decimal"), "+1")[0]?.code).toBe("invalid_type")
  })

  it("honours minLength, maxLength and pattern on strings", () => {
    const s = spec("text", { minLength: 2, maxLength: 4, pattern: "^[a-z]+$" })
    ok(s, "abc")
    expect(issuesOf(s, "a").map((i) => i.code)).toEqual(["too_small"])
    expect(issuesOf(s, "abcde").map((i) => i.code)).toEqual(["too_big"])
    expect(issuesOf(s, "AB").map((i) => i.code)).toEqual(["invalid_pattern"])
    ok(spec("email", { maxLength: 20 }), "a@example.com")
    expect(issuesOf(spec("url", { pattern: "^https:" }), "http://example.com").map((i) => i.code)).toEqual(["invalid_pattern"])
    expect(issuesOf(spec("tags", { maxLength: 3 }), ["ok", "long"])[0]?.path).toEqual(["v", 1])
    // Rich text is counted as stored, markup included.
    expect(issuesOf(spec("richtext", { maxLength: 8 }), "<p>Hi</p>")[0]?.code).toBe("too_big")
    ok(spec("richtext", { maxLength: 9 }), "<p>Hi</p>")
  })

  it("honours min and max on numbers, decimals, dates, date-times, measurements and money", () => {
    expect(issuesOf(spec("number", { min: 0, max: 10 }), -1)[0]?.code).toBe("too_small")
    expect(issuesOf(spec("number", { min: 0, max: 10 }), 11)[0]?.code).toBe("too_big")
    ok(spec("number", { min: 0, max: 10 }), 10)
    expect(issuesOf(spec("decimal", { max: 5 }), "5.01")[0]?.code).toBe("too_big")
    expect(issuesOf(spec("date", { min: "2024-01-01" }), "2023-12-31")[0]?.code).toBe("too_small")
    ok(spec("datetime", { max: "2024-01-01T00:00:00Z" }), "2024-01-01T01:00:00+02:00") // 23:00Z the day before
    expect(issuesOf(spec("datetime", { max: "2024-01-01T00:00:00Z" }), "2024-01-01T00:00:01Z")[0]?.code).toBe("too_big")
    expect(issuesOf(spec("measurement", { min: 1 }), { amount: 0.5, unit: "kg" })[0]?.path).toEqual(["v", "amount"])
    expect(issuesOf(spec("money", { max: 100 }), { amount_cents: 101, currency: "EUR" })[0]?.path).toEqual(["v", "amount_cents"])
  })

  it("compares date-time bounds to the last digit sent, past the millisecond", () => {
    const s = spec("datetime", { min: "2024-01-01T00:00:00.0005Z", max: "2024-12-31T23:59:59Z" })
    expect(issuesOf(s, "2024-12-31T23:59:59.0001Z")[0]?.code).toBe("too_big")
    expect(issuesOf(s, "2025-01-01T01:59:59.000000001+02:00")[0]?.code).toBe("too_big")
    expect(issuesOf(s, "2024-01-01T00:00:00.0004Z")[0]?.code).toBe("too_small")
    ok(s, "2024-12-31T23:59:59.000Z")
    ok(s, "2025-01-01T01:59:59+02:00")
    ok(s, "2024-01-01T00:00:00.00050Z")
    ok(s, "2024-01-01T00:01Z")
  })

  it("honours the string rules on select and multiselect values, beside their options", () => {
    const s = spec("select", { options: ["red", "Blue", "violet"], maxLength: 4, pattern: "^[a-z]+$" })
    ok(s, "red")
    expect(issuesOf(s, "Blue").map((i) => i.code)).toEqual(["invalid_pattern"])
    expect(issuesOf(s, "violet").map((i) => i.code)).toEqual(["too_big"])
    expect(issuesOf(s, "GREEN").map((i) => i.code)).toEqual(["invalid_option", "too_big", "invalid_pattern"])
    const m = spec("multiselect", { minLength: 2 })
    ok(m, ["ab", "cd"])
    expect(issuesOf(m, ["ab", "c"]).map((i) => [i.path, i.code])).toEqual([[["v", 1], "too_small"]])
  })

  it("honours options, units and currencies", () => {
    expect(issuesOf(spec("select", { options: ["red", "blue"] }), "green")[0]?.code).toBe("invalid_option")
    ok(spec("select", { options: [{ code: "red" }, { value: "blue" }] }), "blue")
    expect(issuesOf(spec("multiselect", { options: ["red"] }), ["red", "green"])[0]?.path).toEqual(["v", 1])
    expect(issuesOf(spec("multiselect"), ["red", "blue", "red"])).toEqual([{ path: ["v", 2], message: "option red is already selected", code: "duplicate_entry" }])
    expect(issuesOf(spec("tags"), ["eco", "Eco", "eco"])).toEqual([{ path: ["v", 2], message: "tag eco is already listed", code: "duplicate_entry" }])
    expect(issuesOf(spec("measurement", { units: ["kg", "g"] }), { amount: 1, unit: "lb" })[0]?.path).toEqual(["v", "unit"])
    expect(issuesOf(spec("money", { currencies: ["EUR"] }), { amount_cents: 1, currency: "USD" })[0]?.path).toEqual(["v", "currency"])
    expect(issuesOf(spec("select", { options: ["red", "blue"] }), "green")[0]?.message).toBe("must be one of red, blue")
  })

  it("names a long list of options by its size, not in every issue", () => {
    const options = Array.from({ length: 5000 }, (_, i) => `o${i}`)
    const many = spec("multiselect", { options })
    ok(many, options)
    expect(issuesOf(many, ["o1", "x", "o1", "y"])).toEqual([
      { path: ["v", 1], message: "must be one of the 5000 allowed values", code: "invalid_option" },
      { path: ["v", 2], message: "option o1 is already selected", code: "duplicate_entry" },
      { path: ["v", 3], message: "must be one of the 5000 allowed values", code: "invalid_option" }
    ])
  })

  it("says so when the options name no value, instead of an empty list", () => {
    expect(issuesOf(spec("select", { options: [1, 2] }), "1")).toEqual([
      { path: ["v"], message: "is not allowed: the attribute's validation.options names no value", code: "invalid_option" }
    ])
  })

  it("ignores validation keys of the wrong type instead of failing", () => {
    ok(spec("text", { minLength: "two", pattern: "(" }), "x")
    ok(spec("select", { options: "red" }), "green")
    ok(spec("number", { min: "0" }), -1)
  })
})

const uuidArb = fc.uuid()
const jsonArb = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown)

/** Values every type must accept when no validation rules apply. */
const VALID: Record<AttributeType, fc.Arbitrary<unknown>> = {
  text: fc.string(),
  textarea: fc.string(),
  richtext: fc.string(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  decimal: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.tuple(fc.bigInt(), fc.nat()).map(([i, f]) => `${i}.${f}`)),
  boolean: fc.boolean(),
  date: fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  datetime: fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString()),
  select: fc.string(),
  multiselect: fc.uniqueArray(fc.string()),
  reference: uuidArb,
  media: uuidArb,
  measurement: fc.record({ amount: fc.double({ noNaN: true, noDefaultInfinity: true }), unit: fc.string({ minLength: 1 }) }),
  url: fc.webUrl({ validSchemes: ["http", "https"] }),
  email: fc.emailAddress(),
  json: jsonArb,
  money: fc.record({ amount_cents: fc.maxSafeInteger(), currency: fc.constantFrom("EUR", "USD", "JPY", "CHF", "GBP", "XAU") }),
  tags: fc.uniqueArray(fc.string({ minLength: 1 })),
  file: uuidArb
}

describe("value validators (properties)", () => {
  for (const [type, arb] of Object.entries(VALID) as Array<[AttributeType, fc.Arbitrary<unknown>]>) {
    it(`${type}: every valid value passes`, () => {
      fc.assert(fc.property(arb, (v) => Either.isRight(check(spec(type), v))))
    })
    it(`${type}: any JSON input and any rules answer without throwing`, () => {
      fc.assert(
        fc.property(jsonArb, fc.dictionary(fc.constantFrom("min", "max", "minLength", "maxLength", "pattern", "options", "units", "currencies"), jsonArb), (v, rules) => {
          const r = check(spec(type, rules), v)
          return Either.isLeft(r) ? r.left.every((i) => i.path[0] === "v" && i.message.length > 0) : true
        })
      )
    })
  }

  it("a decimal sent as a number keeps its value as a plain decimal string", () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      const s = ok(spec("decimal"), n)
      return typeof s === "string" && /^-?\d+(\.\d+)?$/.test(s) && Number(s) === n
    }))
  })

  it("a normalized value validates again to itself", () => {
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(VALID) as Array<AttributeType>)).chain((t) => VALID[t].map((v) => [t, v] as const)), ([t, v]) => {
        const once = ok(spec(t), v)
        expect(ok(spec(t), once)).toEqual(once)
      })
    )
  })
})

describe("validateAttributeValues", () => {
  const specs = new Map<string, AttributeSpec>([
    ["qty", { ...spec("number"), code: "qty" }],
    ["title", { ...spec("text"), code: "title", isLocalizable: true, isScopable: true }],
    ["price", { ...spec("decimal"), code: "price" }]
  ])
  const run = (input: unknown) => validateAttributeValues(specs, input, ["attributes"])
  const issues = (input: unknown) => {
    const r = run(input)
    if (Either.isRight(r)) throw new Error("expected issues")
    return r.left
  }

  it("accepts declared values, keeps null entries and normalizes decimals", () => {
    const r = run({
      qty: [{ locale: null, channel: null, value: 3 }],
      title: [{ locale: "en", channel: "web", value: "Hi" }, { locale: "de", channel: "web", value: null }],
      price: [{ locale: null, channel: null, value: 9.5 }]
    })
    expect(r).toEqual(Either.right({
      qty: [{ locale: null, channel: null, value: 3 }],
      title: [{ locale: "en", channel: "web", value: "Hi" }, { locale: "de", channel: "web", value: null }],
      price: [{ locale: null, channel: null, value: "9.5" }]
    }))
  })

  it("refuses unknown codes, non-array values and entries without locale or channel", () => {
    expect(issues({ ghost: [] })[0]).toMatchObject({ path: ["attributes", "ghost"], code: "unknown_attribute" })
    expect(issues({ qty: 3 })[0]?.path).toEqual(["attributes", "qty"])
    expect(issues({ qty: [{ value: 3 }] }).map((i) => i.path)).toEqual([["attributes", "qty", 0, "locale"], ["attributes", "qty", 0, "channel"]])
    expect(issues({ qty: [{ locale: null, channel: null }] })[0]?.path).toEqual(["attributes", "qty", 0, "value"])
    expect(issues({ qty: [{ locale: null, channel: null, value: 3, extra: 1 }] })[0]?.path).toEqual(["attributes", "qty", 0, "extra"])
    expect(issues([])[0]?.path).toEqual(["attributes"])
  })

  it("enforces the localizable and scopable rules", () => {
    expect(issues({ qty: [{ locale: "en", channel: null, value: 3 }] })[0]).toMatchObject({ path: ["attributes", "qty", 0, "locale"], code: "not_localizable" })
    expect(issues({ qty: [{ locale: null, channel: "web", value: 3 }] })[0]).toMatchObject({ path: ["attributes", "qty", 0, "channel"], code: "not_scopable" })
  })

  it("takes null on a localizable or scopable attribute: the value for every locale or channel", () => {
    expect(Either.isRight(run({ title: [{ locale: null, channel: "web", value: "x" }, { locale: "en", channel: null, value: "y" }, { locale: null, channel: null, value: "z" }] })))
      .toBe(true)
    expect(issues({ title: [{ locale: "", channel: null, value: "x" }] })[0]).toMatchObject({ path: ["attributes", "title", 0, "locale"], code: "invalid_type" })
  })

  it("refuses duplicate (locale, channel) pairs and wrong shapes with the value's path", () => {
    expect(issues({ qty: [{ locale: null, channel: null, value: 1 }, { locale: null, channel: null, value: 2 }] })[0]).toMatchObject({
      path: ["attributes", "qty", 1],
      code: "duplicate_entry"
    })
    expect(issues({ qty: [{ locale: null, channel: null, value: "three" }] })[0]?.path).toEqual(["attributes", "qty", 0, "value"])
    // A locale is one whatever its case; a channel is compared as written.
    expect(issues({ title: [{ locale: "en-US", channel: null, value: "a" }, { locale: "en-us", channel: null, value: "b" }] })[0]).toMatchObject({
      path: ["attributes", "title", 1],
      code: "duplicate_entry"
    })
    expect(Either.isRight(run({ title: [{ locale: null, channel: "Web", value: "a" }, { locale: null, channel: "web", value: "b" }] }))).toBe(true)
    // The text "null" is a locale like any other, not the absent one.
    expect(Either.isRight(run({ title: [{ locale: "null", channel: null, value: "a" }, { locale: null, channel: null, value: "b" }] }))).toBe(true)
  })

  it("checks an entry sent exactly as stored for its type only, and every other entry against the rules", () => {
    const narrowed = new Map<string, AttributeSpec>([
      ["motto", { ...spec("text", { maxLength: 3, pattern: "^[a-z]+$" }), code: "motto", isLocalizable: true }],
      ["fit", { ...spec("multiselect", { options: ["slim"] }), code: "fit" }]
    ])
    const stored = {
      motto: [{ locale: "en-US", channel: null, value: "Run far" }],
      fit: [{ locale: null, channel: null, value: ["slim", "loose"] }]
    }
    const codes = (input: unknown) => {
      const r = validateAttributeValues(narrowed, input, ["attributes"], stored)
      return Either.isRight(r) ? "ok" : r.left.map((i) => i.code)
    }
    expect(codes(stored)).toBe("ok")
    expect(codes({ motto: [{ locale: "de", channel: null, value: "Run far" }] })).toEqual(["too_big", "invalid_pattern"])
    // Another spelling of the locale writes a new entry, as a PATCH stores it as it is written.
    expect(codes({ motto: [{ locale: "en-us", channel: null, value: "Run far" }] })).toEqual(["too_big", "invalid_pattern"])
    expect(codes({ motto: [{ locale: "en-US", channel: null, value: "Run" }] })).toEqual(["invalid_pattern"])
    expect(codes({ fit: [{ locale: null, channel: null, value: ["loose", "slim"] }] })).toEqual(["invalid_option"])
    // The type still holds: a value stored as another type than the attribute's now is refused.
    const retyped = new Map<string, AttributeSpec>([["motto", { ...spec("number"), code: "motto", isLocalizable: true }]])
    expect(Either.isLeft(validateAttributeValues(retyped, { motto: stored.motto }, ["attributes"], stored))).toBe(true)
  })

  it("never throws on arbitrary input", () => {
    fc.assert(fc.property(fc.anything(), (input) => Either.isEither(run(input))))
    fc.assert(fc.property(fc.dictionary(fc.constantFrom("qty", "title", "price", "x"), fc.array(fc.anything())), (input) => Either.isEither(run(input))))
  })
})

describe("isFilled", () => {
  const plain = spec("text")
  const scoped = spec("text", null, { isLocalizable: true, isScopable: true })
  const at = { locale: "en", channel: "web" }

  it("looks at null for attributes that are neither localizable nor scopable", () => {
    expect(isFilled(plain, [{ locale: null, channel: null, value: "x" }], at)).toBe(true)
    expect(isFilled(plain, [{ locale: null, channel: null, value: "  " }], at)).toBe(false)
    expect(isFilled(plain, [{ locale: null, channel: null, value: [] }], at)).toBe(false)
    expect(isFilled(plain, undefined, at)).toBe(false)
    expect(isFilled(plain, [], at)).toBe(false)
  })

  it("counts an empty json object or list as unfilled, and false, 0 or a json object with keys as filled", () => {
    const json = spec("json")
    expect(isFilled(json, [{ locale: null, channel: null, value: {} }], at)).toBe(false)
    expect(isFilled(json, [{ locale: null, channel: null, value: [] }], at)).toBe(false)
    expect(isFilled(json, [{ locale: null, channel: null, value: "\u00a0" }], at)).toBe(false)
    expect(isFilled(json, [{ locale: null, channel: null, value: { a: null } }], at)).toBe(true)
    expect(isFilled(json, [{ locale: null, channel: null, value: [null, "", []] }], at)).toBe(false)
    expect(isFilled(json, [{ locale: null, channel: null, value: [null, 0] }], at)).toBe(true)
    expect(isFilled(spec("boolean"), [{ locale: null, channel: null, value: false }], at)).toBe(true)
    expect(isFilled(spec("money"), [{ locale: null, channel: null, value: { amount_cents: 0, currency: "EUR" } }], at)).toBe(true)
  })

  it("counts a list of blank choices, or rich text of markup alone, as unfilled", () => {
    const filled = (type: AttributeType, value: unknown) => isFilled(spec(type), [{ locale: null, channel: null, value }], at)
    expect(filled("multiselect", [""])).toBe(false)
    expect(filled("multiselect", [" ", "\t"])).toBe(false)
    expect(filled("multiselect", ["", "red"])).toBe(true)
    expect(filled("richtext", "<p></p>")).toBe(false)
    expect(filled("richtext", "<p><br></p>\n<p>&nbsp;</p>")).toBe(false)
    expect(filled("richtext", "<p>Soft <b>wool</b></p>")).toBe(true)
    expect(filled("text", "<p></p>")).toBe(true)
    expect(filled("textarea", "a < b")).toBe(true)
    expect(filled("richtext", "<p><3 ></p>")).toBe(true)
    expect(filled("richtext", "<p><!-- draft --></p>")).toBe(false)
    expect(filled("richtext", "<p></p><br")).toBe(true)
    expect(filled("richtext", "<a ".repeat(300_000))).toBe(true)
  })

  it("counts rich text that shows an image, a video or an embedded frame as filled, though it holds no text", () => {
    const filled = (value: string) => isFilled(spec("richtext"), [{ locale: null, channel: null, value }], at)
    expect(filled("<p><img src=\"https://cdn.example/hero.jpg\" alt=\"\"></p>")).toBe(true)
    expect(filled("<figure><IMG/></figure>")).toBe(true)
    expect(filled("<video controls><source src=\"a.mp4\"></video>")).toBe(true)
    expect(filled("<p><iframe src=\"https://video.example/embed/1\"></iframe></p>")).toBe(true)
    expect(filled("<p><br><hr></p>")).toBe(false)
    expect(filled("<p><imgs></imgs></p>")).toBe(false)
  })

  it("counts text of invisible format characters alone as unfilled, as it is no name of a brand", () => {
    const filled = (type: AttributeType, value: unknown) => isFilled(spec(type), [{ locale: null, channel: null, value }], at)
    expect(filled("text", "\u200b")).toBe(false)
    expect(filled("text", " \u00ad\u2060 ")).toBe(false)
    expect(filled("multiselect", ["\u200b", "\ufeff"])).toBe(false)
    expect(filled("richtext", "<p>\u200b</p>")).toBe(false)
    expect(filled("text", "a\u200b")).toBe(true)
  })

  it("looks at the default locale and channel otherwise", () => {
    expect(isFilled(scoped, [{ locale: "en", channel: "web", value: "x" }], at)).toBe(true)
    expect(isFilled(scoped, [{ locale: "de", channel: "web", value: "x" }], at)).toBe(false)
    expect(isFilled(scoped, [{ locale: "de", channel: "web", value: "x" }], { locale: null, channel: null })).toBe(true)
    expect(isFilled(spec("number"), [{ locale: null, channel: null, value: 0 }], at)).toBe(true)
  })

  it("counts a null locale or channel as a value at the default one", () => {
    expect(isFilled(scoped, [{ locale: null, channel: "web", value: "x" }], at)).toBe(true)
    expect(isFilled(scoped, [{ locale: "en", channel: null, value: "x" }], at)).toBe(true)
    expect(isFilled(scoped, [{ locale: null, channel: "app", value: "x" }], at)).toBe(false)
    expect(isFilled(scoped, [{ locale: null, channel: null, value: "" }], at)).toBe(false)
  })

  it("reads the value the default locale and channel resolve to: an empty entry of their own hides a filled null one", () => {
    const shadowed = [{ locale: "en", channel: "web", value: " " }, { locale: null, channel: null, value: "x" }]
    expect(isFilled(scoped, shadowed, at)).toBe(false)
    expect(isFilled(scoped, [{ locale: "EN", channel: null, value: "" }, { locale: null, channel: "web", value: "x" }], at)).toBe(false)
    expect(isFilled(scoped, [{ locale: "en", channel: "app", value: "" }, { locale: null, channel: null, value: "x" }], at)).toBe(true)
    expect(isFilled(scoped, shadowed, { locale: null, channel: null })).toBe(true)
    expect(isFilled(scoped, [{ locale: "de", channel: "web", value: "" }, { locale: "de", channel: null, value: "x" }], { locale: null, channel: "web" }))
      .toBe(false)
    expect(isFilled(scoped, [{ locale: "de", channel: "web", value: "" }, { locale: "de", channel: null, value: "x" }], { locale: null, channel: "app" }))
      .toBe(true)
  })
})

describe("missingRequired", () => {
  const attribute = (code: string, effectiveRequirement: "required" | "suggested" | "available", more: Partial<AttributeSpec> = {}) => ({
    ...spec("text", null, more), code, attributeId: code, effectiveRequirement, isVariantAxis: false, position: 0
  })
  const family = [
    attribute("title", "required", { isLocalizable: true, isScopable: true }),
    attribute("sku", "required"),
    attribute("note", "suggested"),
    attribute("blurb", "available")
  ]

  it("names each unfilled required attribute at its path, and where its value must be", () => {
    const issues = missingRequired(family, { title: [{ locale: "fr", channel: "web", value: "Titre" }] }, { locale: "en", channel: "web" })
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      [["attributes", "title"], "required_attribute_missing"],
      [["attributes", "sku"], "required_attribute_missing"]
    ])
    expect(issues[0]!.message).toBe("required attribute title must be filled at locale en and channel web (or null) to activate the product")
    expect(issues[1]!.message).toBe("required attribute sku must be filled to activate the product")
    expect(missingRequired(family, { title: [{ locale: "fr", channel: "web", value: "Titre" }] }, { locale: null, channel: "web" })[0]!.message)
      .toBe("required attribute sku must be filled to activate the product")
  })
})

describe("mergeValues", () => {
  const entry = (locale: string | null, value: unknown) => ({ locale, channel: null, value })

  it("replaces in place, adds last and removes per (locale, channel)", () => {
    const current = { title: [entry("en", "a"), entry("de", "b"), entry(null, "c")], qty: [entry(null, 1)] }
    const { merged, touched } = mergeValues(current, { title: [entry("en", "A"), entry("de", null), entry("fr", "d")], qty: [entry(null, 1)] })
    expect(merged).toEqual({ title: [entry("en", "A"), entry(null, "c"), entry("fr", "d")], qty: [entry(null, 1)] })
    expect(touched).toEqual(["title"])
  })

  it("counts entries sent again in another order as untouched, and drops a code left empty", () => {
    const current = { title: [entry("en", "a"), entry("de", "b")], qty: [entry(null, 1)] }
    const { merged, touched } = mergeValues(current, { title: [entry("de", "b"), entry("en", "a")], qty: [entry(null, null)] })
    expect(merged).toEqual({ title: [entry("en", "a"), entry("de", "b")] })
    expect(touched).toEqual(["qty"])
  })
})

describe("compareDecimals", () => {
  const decimalString = fc.tuple(fc.boolean(), fc.stringMatching(/^\d{1,25}$/), fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }))
    .map(([negative, int, frac]) => `${negative ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}`)
  const scaled = (s: string, places: number) => {
    const [int = "", frac = ""] = s.replace("-", "").split(".")
    const n = BigInt(int + frac.padEnd(places, "0"))
    return s.startsWith("-") ? -n : n
  }

  it("orders decimal strings exactly, as scaled integers do", () => {
    fc.assert(fc.property(decimalString, decimalString, (a, b) => {
      const x = scaled(a, 25)
      const y = scaled(b, 25)
      expect(compareDecimals(a, b)).toBe(x < y ? -1 : x > y ? 1 : 0)
    }), { numRuns: 2000 })
    expect([compareDecimals("-0.00", "0"), compareDecimals("007.50", "7.5"), compareDecimals("-1.5", "-1.25")]).toEqual([0, 0, -1])
  })

  it("holds decimal values to min and max beyond a double's precision", () => {
    const bounded = spec("decimal", { min: -0.1, max: 10 })
    for (const value of ["10.0000000000000000001", "10.000000000000000444", "11"]) expect(issuesOf(bounded, value)[0]?.code).toBe("too_big")
    for (const value of ["-0.1000000000000000001", "-1"]) expect(issuesOf(bounded, value)[0]?.code).toBe("too_small")
    for (const value of ["10", "10.000", "-0.1", "0", "9.99999999999999999999"]) ok(bounded, value)
  })

  it("takes decimal bounds written as decimal strings, as decimal values are", () => {
    const bounded = spec("decimal", { min: "-0.10", max: "10.5" })
    expect(issuesOf(bounded, "10.6")[0]).toMatchObject({ code: "too_big", message: "must be at most 10.5" })
    expect(issuesOf(bounded, 10.51)[0]?.code).toBe("too_big")
    expect(issuesOf(bounded, "-0.1000000000000000001")[0]?.code).toBe("too_small")
    for (const value of ["10.5", "10.50", "-0.1", 0]) ok(bounded, value)
    ok(spec("decimal", { max: "ten" }), "11")
  })
})

describe("toUtcText", () => {
  it("writes a date-time in UTC with the precision it was sent with", () => {
    expect([
      "2024-01-01T10:00:00+02:00",
      "2024-01-01t10:00:00.5+02:00",
      "2024-01-01T00:30-0130",
      "2024-01-01T00:00:00.1239999+00:00",
      "2024-03-01T00:00:00z",
      "2024-05-01T12:00:00Z"
    ].map(toUtcText)).toEqual([
      "2024-01-01T08:00:00Z",
      "2024-01-01T08:00:00.5Z",
      "2024-01-01T02:00Z",
      "2024-01-01T00:00:00.1239999Z",
      "2024-03-01T00:00:00Z",
      "2024-05-01T12:00:00Z"
    ])
    expect(ok(spec("datetime"), "2024-01-01T01:00:00+02:00")).toBe("2023-12-31T23:00:00Z")
  })

  it("keeps the instant, and changes nothing already in UTC", () => {
    const offset = fc.tuple(fc.constantFrom("+", "-"), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([sign, h, m]) => `${sign}${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
    const instant = fc.date({ min: new Date("0001-01-02T00:00:00Z"), max: new Date("9999-12-30T00:00:00Z"), noInvalidDate: true })
    fc.assert(fc.property(instant, offset, (date, zone) => {
      const local = new Date(date.getTime() + (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4))) * 60_000)
      const sent = `${local.toISOString().slice(0, 23)}${zone}`
      const utc = toUtcText(sent)
      expect([utc, Date.parse(utc)]).toEqual([date.toISOString(), date.getTime()])
      expect(toUtcText(utc)).toBe(utc)
    }))
  })
})
