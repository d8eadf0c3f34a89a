import { ParseResult } from "effect"
import { type Issue, ValidationFailed } from "./Errors.js"

const ISSUE_CODES: Readonly<Record<string, string>> = {
  Missing: "required",
  Unexpected: "unrecognized_key",
  Type: "invalid_type",
  Forbidden: "forbidden"
}

/** A schema failure as the issues of a 422, for input decoded outside the HTTP contract (bulk items). */
export const validationFailedOf = (error: ParseResult.ParseError, prefix: ReadonlyArray<string | number> = []): ValidationFailed => {
  const issues: ReadonlyArray<Issue> = ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({
    path: [...prefix, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    message: i.message,
    code: ISSUE_CODES[i._tag] ?? "invalid"
  }))
  return ValidationFailed.of(issues)
}
