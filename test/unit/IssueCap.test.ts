import { HttpApiError } from "@effect/platform"
import { Effect, Either, Exit, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { MAX_ISSUES, ValidationFailed } from "../../core/shared/Errors.js"
import { decodeIssues, MAX_FAILED_CHECKS, validationFailedOf } from "../../core/shared/ParseIssues.js"
import { isCutShort } from "../../hosts/http/DecodeFailures.js"
import { validationFailedEnvelope } from "../../hosts/http/Errors.js"

const issue = (i: number) => ({ path: ["tags", i], message: "Expected string, actual 5", code: "invalid_type" })

describe("the issues a refusal lists", () => {
  it("lists them all up to MAX_ISSUES, and past that only the first ones, marked truncated", () => {
    const all = Array.from({ length: MAX_ISSUES }, (_, i) => issue(i))
    expect(validationFailedEnvelope(ValidationFailed.of(all)).error.details).toEqual({ issues: all })
    const more = ValidationFailed.of(Array.from({ length: 500_000 }, (_, i) => issue(i)))
    expect(validationFailedEnvelope(more)).toEqual({
      error: { code: "validation_failed", message: expect.stringMatching(/^tags\.0: .*; tags\.99: [^;]*; and more issues not listed$/), details: { issues: all, truncated: true } }
    })
  })

  it("marks a list truncated when its maker knows it left issues out", () => {
    expect(validationFailedEnvelope(ValidationFailed.of([issue(0)], true)).error.details).toEqual({ issues: [issue(0)], truncated: true })
  })
})

describe("a request's schema failure", () => {
  const Body = Schema.Struct({ tags: Schema.optional(Schema.Array(Schema.String)), name: Schema.String })
  const failureOf = (body: unknown) => {
    const decoded = Schema.decodeUnknownEither(Body, { errors: "all" })(body)
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    return decoded.left
  }
  /** The failure HttpApi reports for a schema failure of a request, as it makes it. */
  const reported = (error: ParseResult.ParseError) => {
    const exit = Effect.runSyncExit(HttpApiError.HttpApiDecodeError.refailParseError(error))
    if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error("expected a failure")
    return exit.cause.error
  }

  // HttpApi formatted all of them, twice: minutes of CPU for a body of a few million.
  it("formats only the first failed checks of a million bad values, in order, and says so", () => {
    const failure = reported(failureOf({ tags: Array.from({ length: 1_000_000 }, () => 5) }))
    expect(failure.issues.length).toBeLessThanOrEqual(MAX_FAILED_CHECKS)
    expect(isCutShort(failure)).toBe(true)
    expect(decodeIssues(failure.issues).slice(0, MAX_ISSUES)).toEqual(Array.from({ length: MAX_ISSUES }, (_, i) => issue(i)))
  })

  it("formats a failure of few checks whole, as before", () => {
    const failure = reported(failureOf({ tags: [5, "ok", 5] }))
    expect(isCutShort(failure)).toBe(false)
    expect(decodeIssues(failure.issues)).toEqual([issue(0), issue(2), { path: ["name"], message: "is missing", code: "required" }])
    expect(failure.message).toContain("is missing")
  })
})

describe("a bulk item's schema failure", () => {
  // Each bulk item is decoded by itself: one item of two million bad tags took 45 s.
  it("formats only the first failed checks of a million bad values, and lists the first 100", () => {
    let formatted = 0
    const Tag = Schema.String.annotations({
      message: () => {
        formatted++
        return "must be a string"
      }
    })
    const Item = Schema.Struct({ tags: Schema.Array(Tag) })
    const decoded = Schema.decodeUnknownEither(Item, { errors: "all" })({ tags: Array.from({ length: 1_000_000 }, () => 5) })
    if (Either.isRight(decoded)) throw new Error("expected a failure")
    const failed = validationFailedOf(decoded.left)
    expect(formatted).toBeLessThanOrEqual(MAX_FAILED_CHECKS)
    expect([failed.issues, failed.truncated]).toEqual([
      Array.from({ length: MAX_ISSUES }, (_, i) => ({ path: ["tags", i], message: "must be a string", code: "invalid_type" })),
      true
    ])
  })
})
