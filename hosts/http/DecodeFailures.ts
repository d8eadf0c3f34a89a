import { HttpApiError } from "@effect/platform"
import { Effect, ParseResult } from "effect"
import { MAX_ISSUES } from "../../core/shared/Errors.js"

/**
 * How many failed checks of a request's schema failure are formatted. A bad value can fail
 * several (each member of a union, the `undefined` of an optional field): ten per listed
 * issue leave the first `MAX_ISSUES` whole.
 */
export const MAX_FAILED_CHECKS = 10 * MAX_ISSUES

type Issues = ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>
const isList = (issues: Issues): issues is Extract<Issues, ReadonlyArray<unknown>> => Array.isArray(issues)

/**
 * The issue with at most `budget.left` failed checks (its leaves), the first ones in the
 * order of the input; `budget.cut` is set when some were left out. Only what is kept is
 * visited, so a failure of millions of values is cut in a moment.
 */
const prune = (issue: ParseResult.ParseIssue, budget: { left: number; cut: boolean }): ParseResult.ParseIssue | undefined => {
  if (budget.left === 0) {
    budget.cut = true
    return undefined
  }
  switch (issue._tag) {
    case "Type":
    case "Missing":
    case "Unexpected":
    case "Forbidden":
      budget.left--
      return issue
    case "Pointer": {
      const inner = prune(issue.issue, budget)
      return inner === undefined ? undefined : new ParseResult.Pointer(issue.path, issue.actual, inner)
    }
    case "Refinement": {
      const inner = prune(issue.issue, budget)
      return inner === undefined ? undefined : new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, inner)
    }
    case "Transformation": {
      const inner = prune(issue.issue, budget)
      return inner === undefined ? undefined : new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, inner)
    }
    case "Composite": {
      if (!isList(issue.issues)) {
        const inner = prune(issue.issues, budget)
        return inner === undefined ? undefined : new ParseResult.Composite(issue.ast, issue.actual, inner, issue.output)
      }
      const kept: Array<ParseResult.ParseIssue> = []
      for (const child of issue.issues) {
        const inner = prune(child, budget)
        if (inner === undefined) break
        kept.push(inner)
      }
      const [first, ...rest] = kept
      return first === undefined ? undefined : new ParseResult.Composite(issue.ast, issue.actual, [first, ...rest], issue.output)
    }
  }
}

/** Decode failures whose issues were cut to the first `MAX_FAILED_CHECKS` failed checks. */
const cutShort = new WeakSet<HttpApiError.HttpApiDecodeError>()

/** Whether the failure lists only some of the request's issues. */
export const isCutShort = (error: HttpApiError.HttpApiDecodeError): boolean => cutShort.has(error)

/**
 * A schema failure as HttpApi reports it, formatting only its first `MAX_FAILED_CHECKS`
 * failed checks.
 */
export const decodeFailure = (error: ParseResult.ParseError): HttpApiError.HttpApiDecodeError => {
  const budget = { left: MAX_FAILED_CHECKS, cut: false }
  const kept = new ParseResult.ParseError({ issue: prune(error.issue, budget) ?? error.issue })
  const failure = new HttpApiError.HttpApiDecodeError({
    issues: ParseResult.ArrayFormatter.formatErrorSync(kept),
    message: ParseResult.TreeFormatter.formatErrorSync(kept)
  })
  if (budget.cut) cutShort.add(failure)
  return failure
}

// HttpApi formats every schema failure of a request (path, query, body) whole, twice (as a
// list and as a tree) before any middleware sees it: for a body of a million bad values,
// minutes of CPU and gigabytes. It calls this static to do so, looked up when the API's routes
// are built: replaced here, it formats only what the 422 lists.
HttpApiError.HttpApiDecodeError.refailParseError = (error) => Effect.fail(decodeFailure(error))
