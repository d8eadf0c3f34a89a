import { Either, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ListProductsQuery } from "../../core/products/ProductQuery.js"
import { decodeIssues, validationFailedOf } from "../../core/shared/ParseIssues.js"

const issuesOf = (query: Record<string, unknown>) => {
  const decoded = Schema.decodeUnknownEither(ListProductsQuery)(query)
  if (Either.isRight(decoded)) throw new Error("expected a failure")
  return decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.left))
}

describe("decodeIssues", () => {
  it("answers one issue per bad value: literal choices merged, the optional member dropped", () => {
    expect(issuesOf({ status: "bogus", withTotal: "yes", familyId: "x" })).toEqual([
      { path: ["status"], message: 'Expected "draft" | "active" | "archived", actual "bogus"', code: "invalid_type" },
      { path: ["familyId"], message: "must be a UUID", code: "invalid" },
      { path: ["withTotal"], message: 'Expected "true" | "false" | "1" | "0", actual "yes"', code: "invalid_type" }
    ])
    expect(issuesOf({ colour: "red", limit: "0" }).map((i) => [i.path, i.code])).toEqual([[["colour"], "unrecognized_key"], [["limit"], "invalid"]])
  })

  it("drops the null member of a nullable object that failed inside, and lists it when the value is no object", () => {
    const Body = Schema.Struct({ settings: Schema.optional(Schema.NullOr(Schema.Struct({ locale: Schema.optional(Schema.String) }))) })
    const decoded = Schema.decodeUnknownEither(Body, { onExcessProperty: "error" })({ settings: { foo: 1 } })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    expect(decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.left))).toEqual([
      { path: ["settings", "foo"], message: 'is unexpected, expected: "locale"', code: "unrecognized_key" }
    ])
    const wrongType = Schema.decodeUnknownEither(Body)({ settings: 5 })
    if (Either.isRight(wrongType)) throw new Error("expected a failure")
    expect(decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(wrongType.left))).toEqual([
      { path: ["settings"], message: "Expected an object | null, actual 5", code: "invalid_type" }
    ])
  })

  it("drops the string member of a string-or-map value that failed as a map, and lists both when it is neither", () => {
    const Label = Schema.Union(Schema.String, Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
      Schema.filter((label) => Object.keys(label).length <= 1, { message: () => "at most 1 locale" })
    ))
    const issues = (label: unknown) => {
      const decoded = Schema.decodeUnknownEither(Schema.Struct({ label: Label }), { errors: "all" })({ label })
      if (Either.isRight(decoded)) throw new Error("expected a failure")
      return decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.left))
    }
    expect(issues({ en: 1 })).toEqual([{ path: ["label", "en"], message: "Expected string, actual 1", code: "invalid_type" }])
    expect(issues({ en: "a", de: "b" })).toEqual([{ path: ["label"], message: "at most 1 locale", code: "invalid" }])
    expect(issues(5)).toEqual([{ path: ["label"], message: "Expected string | an object, actual 5", code: "invalid_type" }])
  })

  it("gives a bulk item's failure the same issues as a request's", () => {
    const Item = Schema.Struct({ op: Schema.Literal("create", "update", "delete") })
    const decoded = Schema.decodeUnknownEither(Item)({ op: "frob" })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    const failed = validationFailedOf(decoded.left)
    expect(failed.issues).toEqual([{ path: ["op"], message: 'Expected "create" | "update" | "delete", actual "frob"', code: "invalid_type" }])
    expect(failed.message).toBe('op: Expected "create" | "update" | "delete", actual "frob"')
  })

  // Each issue was compared with every other: a body of 100,000 bad values took over a minute.
  it("answers a hundred thousand bad values, each once, with the same drops and merges", () => {
    const Body = Schema.Struct({
      items: Schema.Array(Schema.NullOr(Schema.Struct({ code: Schema.String }))),
      amounts: Schema.Array(Schema.Union(Schema.Number, Schema.Boolean)),
      notes: Schema.optional(Schema.Array(Schema.String))
    })
    const n = 50_000
    const decoded = Schema.decodeUnknownEither(Body, { errors: "all" })({
      items: Array.from({ length: n }, () => ({ code: 5 })),
      amounts: Array.from({ length: n }, () => "x"),
      notes: [1]
    })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    const raw = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
    // Each item fails inside and as null, each amount as either member, and the notes as undefined.
    expect(raw.length).toBe(4 * n + 2)
    expect(decodeIssues(raw)).toEqual([
      ...Array.from({ length: n }, (_, i) => ({ path: ["items", i, "code"], message: "Expected string, actual 5", code: "invalid_type" })),
      ...Array.from({ length: n }, (_, i) => ({ path: ["amounts", i], message: 'Expected number | boolean, actual "x"', code: "invalid_type" })),
      { path: ["notes", 0], message: "Expected string, actual 1", code: "invalid_type" }
    ])
  })

  it("tells a numeric step from the same digits as a key, and merges only alternatives about one value", () => {
    const raw = [
      { _tag: "Type", path: ["a", 0], message: "Expected number, actual \"x\"" },
      { _tag: "Type", path: ["a", "0"], message: "Expected boolean, actual \"x\"" },
      { _tag: "Type", path: ["a", 0], message: "Expected boolean, actual \"y\"" },
      { _tag: "Type", path: ["b"], message: "Expected undefined, actual 1" },
      { _tag: "Type", path: ["c", "d"], message: "Expected null, actual 1" },
      { _tag: "Type", path: ["c", "d"], message: "must be positive" }
    ]
    expect(decodeIssues(raw)).toEqual([
      { path: ["a", 0], message: 'Expected number, actual "x"', code: "invalid_type" },
      { path: ["a", "0"], message: 'Expected boolean, actual "x"', code: "invalid_type" },
      { path: ["a", 0], message: 'Expected boolean, actual "y"', code: "invalid_type" },
      { path: ["b"], message: "Expected undefined, actual 1", code: "invalid_type" },
      { path: ["c", "d"], message: "must be positive", code: "invalid_type" }
    ])
  })
})
