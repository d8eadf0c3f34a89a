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
    expect(issuesOf({ status: "bogus", withTotal: "yes", ids: "x" })).toEqual([
      { path: ["status"], message: 'Expected "draft" | "active" | "archived", actual "bogus"', code: "invalid_type" },
      { path: ["ids", 0], message: "must be a UUID", code: "invalid" },
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

  it("gives a bulk item's failure the same issues as a request's", () => {
    const Item = Schema.Struct({ op: Schema.Literal("create", "update", "delete") })
    const decoded = Schema.decodeUnknownEither(Item)({ op: "frob" })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    const failed = validationFailedOf(decoded.left)
    expect(failed.issues).toEqual([{ path: ["op"], message: 'Expected "create" | "update" | "delete", actual "frob"', code: "invalid_type" }])
    expect(failed.message).toBe('op: Expected "create" | "update" | "delete", actual "frob"')
  })
})
