import { Option, ParseResult, Schema, SchemaAST } from "effect"
import { type Issue, MAX_ISSUES, ValidationFailed } from "./Errors.js"
import { preview } from "./Preview.js"

const ISSUE_CODES: Readonly<Record<string, string>> = {
  Missing: "required",
  Unexpected: "unrecognized_key",
  Type: "invalid_type",
  Forbidden: "forbidden"
}

/** An issue as `ParseResult.ArrayFormatter` gives it. */
interface RawIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const ALTERNATIVE = /^Expected (.*), actual (.*)$/s
/** What an issue expected, in words: a struct's own description lists every field's schema. */
const expectedOf = (description: string) =>
  description.startsWith("{ readonly ") ? "an object" : description.startsWith("ReadonlyArray<") ? "an array" : description

const pathOf = (path: ReadonlyArray<PropertyKey>): Array<string | number> => path.map((p) => (typeof p === "symbol" ? String(p) : p))

/** One path step as text, no two steps alike (`0` and `"0"` differ). */
const stepKey = (p: PropertyKey) => (typeof p === "symbol" ? `@${String(p)}` : JSON.stringify(p))

/** The key of each prefix of `path`, the empty one first and the whole path last. */
const prefixKeys = (path: ReadonlyArray<PropertyKey>): Array<string> => {
  const keys = [""]
  for (const p of path) keys.push(`${keys[keys.length - 1]}/${stepKey(p)}`)
  return keys
}

const increment = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)

/**
 * One issue per bad value. A union reports each member it tried: an optional field also fails
 * its `undefined` member (dropped where another issue names the value or a part of it), a
 * value that failed a refinement or inside one member also fails the members of other types
 * (its `null`, the string of a string-or-map label: dropped), and the members a value matched
 * none of are merged into one issue listing them.
 *
 * Linear in the issues: a body of a hundred thousand bad values is answered in a moment, where
 * comparing each issue with every other took minutes.
 */
export const decodeIssues = (raw: ReadonlyArray<RawIssue>): Array<Issue> => {
  // By path: how many issues lie at it or below it, how many exactly at it, and how many of
  // those exactly at it are no "Expected ..., actual ..." alternative.
  const within = new Map<string, number>()
  const at = new Map<string, number>()
  const plainAt = new Map<string, number>()
  const keyOf: Array<string> = []
  for (const i of raw) {
    const keys = prefixKeys(i.path)
    for (const key of keys) increment(within, key)
    const key = keys[keys.length - 1] ?? ""
    keyOf.push(key)
    increment(at, key)
    if (!ALTERNATIVE.test(i.message)) increment(plainAt, key)
  }
  const dropped = (i: RawIssue, key: string) => {
    // Another issue at the same path or below it (this one counts itself once).
    if (i.message.startsWith("Expected undefined, actual")) return (within.get(key) ?? 0) > 1
    // A member of another type than the value's (`null`, or a string where a label map came):
    // dropped where a member of the value's type failed further in or by a check of its own.
    // This one is an alternative, so it is neither below its path nor among the plain ones at it.
    if (ALTERNATIVE.test(i.message)) return (within.get(key) ?? 0) > (at.get(key) ?? 0) || (plainAt.get(key) ?? 0) > 0
    return false
  }
  const out: Array<Issue & { alternatives?: Array<string>; actual?: string }> = []
  // The alternatives issue of each path and actual value, which later members join.
  const merged = new Map<string, { alternatives: Array<string> }>()
  raw.forEach((i, n) => {
    const key = keyOf[n] ?? ""
    if (dropped(i, key)) return
    const path = pathOf(i.path)
    const code = ISSUE_CODES[i._tag] ?? "invalid"
    const alternative = ALTERNATIVE.exec(i.message)
    if (alternative === null) {
      out.push({ path, message: i.message, code })
      return
    }
    const actual = alternative[2] ?? ""
    const expected = expectedOf(alternative[1] ?? "")
    const mergeKey = `${key}\u0000${actual}`
    const earlier = merged.get(mergeKey)
    if (earlier !== undefined) earlier.alternatives.push(expected)
    else {
      const issue = { path, message: i.message, code, alternatives: [expected], actual }
      merged.set(mergeKey, issue)
      out.push(issue)
    }
  })
  return out.map((i) => ({
    path: i.path,
    message: i.alternatives === undefined ? i.message : `Expected ${i.alternatives.join(" | ")}, actual ${i.actual}`,
    code: i.code
  }))
}

/**
 * How many failed checks of a request's schema failure are formatted. A bad value can fail
 * several (each member of a union, the `undefined` of an optional field): ten per listed
 * issue leave the first `MAX_ISSUES` whole.
 */
export const MAX_FAILED_CHECKS = 10 * MAX_ISSUES

const ACTUAL_UNDEFINED = ", actual undefined"

/**
 * What a schema expects, as its default message says it (`Expected <this>, actual ...`); none
 * where an annotation gives the message.
 */
const defaultExpected = (ast: SchemaAST.AST): string | undefined => {
  const [standIn] = ParseResult.ArrayFormatter.formatIssueSync(new ParseResult.Type(ast, undefined))
  const message = standIn?.message ?? ""
  return message.startsWith("Expected ") && message.endsWith(ACTUAL_UNDEFINED) ? message.slice(9, -ACTUAL_UNDEFINED.length) : undefined
}

/**
 * The failed check, showing only the start of a long value it refused: the default message
 * holds the whole value, and a 422 for a 9 MB string where an array belongs answered 18 MB.
 */
const shortened = (issue: ParseResult.Type): ParseResult.Type => {
  if (issue.message !== undefined) return issue
  const shown = preview(issue.actual)
  const expected = shown === undefined ? undefined : defaultExpected(issue.ast)
  return expected === undefined ? issue : new ParseResult.Type(issue.ast, issue.actual, `Expected ${expected}, actual ${shown}`)
}

type Issues = ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>
const isList = (issues: Issues): issues is Extract<Issues, ReadonlyArray<unknown>> => Array.isArray(issues)

/**
 * Whether a refinement's message stands for its input's failures too. Otherwise the formatter
 * gives such a failure the message of the input's schema, yet codes it as the refinement's:
 * `validation: 123` was `must be an object` with code `invalid`, not `invalid_type`.
 */
const overridesMessage = (issue: ParseResult.Refinement): boolean =>
  Option.match(SchemaAST.getMessageAnnotation(issue.ast), {
    onNone: () => false,
    onSome: (message) => {
      const said = message(issue)
      return typeof said === "object" && said !== null && "override" in said && said.override === true
    }
  })

/** A check that passes everything, standing for a refinement whose failure names a path below its value. */
const CHECK = Schema.Unknown.pipe(Schema.filter(() => true)).ast as SchemaAST.Refinement

/**
 * The issue with at most `budget.left` failed checks (its leaves), the first ones in the
 * order of the input; `budget.cut` is set when some were left out. Only what is kept is
 * visited, so a failure of millions of values is cut in a moment. A refinement's failure at a
 * path below its value (a label's locale named twice) is kept a refinement's, coded `invalid`
 * as one at the value is: the formatter would code it `invalid_type`, though the value's type
 * is right.
 */
const prune = (issue: ParseResult.ParseIssue, budget: { left: number; cut: boolean }, belowCheck = false): ParseResult.ParseIssue | undefined => {
  if (budget.left === 0) {
    budget.cut = true
    return undefined
  }
  switch (issue._tag) {
    case "Type":
      budget.left--
      return belowCheck ? new ParseResult.Refinement(CHECK, issue.actual, "Predicate", shortened(issue)) : shortened(issue)
    case "Missing":
    case "Unexpected":
    case "Forbidden":
      budget.left--
      return issue
    case "Pointer": {
      const inner = prune(issue.issue, budget, belowCheck)
      return inner === undefined ? undefined : new ParseResult.Pointer(issue.path, issue.actual, inner)
    }
    case "Refinement": {
      const inner = prune(issue.issue, budget, issue.kind === "Predicate")
      if (inner === undefined) return undefined
      // A value the refinement never saw, of the wrong type: coded by its own failure.
      return issue.kind === "From" && !overridesMessage(issue) ? inner : new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, inner)
    }
    case "Transformation": {
      const inner = prune(issue.issue, budget)
      return inner === undefined ? undefined : new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, inner)
    }
    case "Composite": {
      if (!isList(issue.issues)) {
        const inner = prune(issue.issues, budget, belowCheck)
        return inner === undefined ? undefined : new ParseResult.Composite(issue.ast, issue.actual, inner, issue.output)
      }
      const kept: Array<ParseResult.ParseIssue> = []
      for (const child of issue.issues) {
        const inner = prune(child, budget, belowCheck)
        if (inner === undefined) break
        kept.push(inner)
      }
      const [first, ...rest] = kept
      return first === undefined ? undefined : new ParseResult.Composite(issue.ast, issue.actual, [first, ...rest], issue.output)
    }
  }
}

/**
 * A schema failure cut to its first `MAX_FAILED_CHECKS` failed checks, and whether some were
 * left out: formatting all of them, for input of a million bad values, took minutes of CPU and
 * gigabytes, for a 422 that lists 100.
 */
export const firstFailedChecks = (error: ParseResult.ParseError): { readonly error: ParseResult.ParseError; readonly cut: boolean } => {
  const budget = { left: MAX_FAILED_CHECKS, cut: false }
  return { error: new ParseResult.ParseError({ issue: prune(error.issue, budget) ?? error.issue }), cut: budget.cut }
}

/** A schema failure as the issues of a 422, for input decoded outside the HTTP contract (bulk items). */
export const validationFailedOf = (error: ParseResult.ParseError): ValidationFailed => {
  const first = firstFailedChecks(error)
  return ValidationFailed.of(decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(first.error)), first.cut)
}
