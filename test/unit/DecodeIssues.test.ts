import { Either, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ListProductsQuery } from "../../core/products/ProductQuery.js"
import { decodeIssues } from "../../hosts/http/DecodeIssues.js"

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
})
