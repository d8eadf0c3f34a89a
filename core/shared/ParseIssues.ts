import { ParseResult } from "effect"
import { type Issue, ValidationFailed } from "./Errors.js"

const ISSUE_CODES: Readonly<Record<string, string>> = {
  Missing: "required",
  Unexpected: "unrecognized_key",
  Type: "invalid_type",
  Forbidden: "forbidden"
}

/** An issue as `ParseResult.ArrayFormatter` gives it. */
export interface RawIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const startsWith = (path: ReadonlyArray<PropertyKey>, prefix: ReadonlyArray<PropertyKey>) =>
  path.length >= prefix.length && prefix.every((k, i) => k === path[i])
const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) => a.length === b.length && startsWith(a, b)

const ALTERNATIVE = /^Expected (.*), actual (.*)$/s
/** What an issue expected, in words: a struct's own description lists every field's schema. */
const expectedOf = (description: string) =>
  description.startsWith("{ readonly ") ? "an object" : description.startsWith("ReadonlyArray<") ? "an array" : description

const pathOf = (path: ReadonlyArray<PropertyKey>): Array<string | number> => path.map((p) => (typeof p === "symbol" ? String(p) : p))

/**
 * One issue per bad value. A union reports each member it tried: an optional field also fails
 * its `undefined` member (dropped where another issue names the value or a part of it), a
 * nullable value that failed a refinement or inside also fails its `null` member (dropped),
 * and the members a value matched none of are merged into one issue listing them.
 */
export const decodeIssues = (raw: ReadonlyArray<RawIssue>): Array<Issue> => {
  const kept = raw.filter((i) => !(
    (i.message.startsWith("Expected undefined, actual") && raw.some((o) => o !== i && startsWith(o.path, i.path))) ||
    (i.message.startsWith("Expected null, actual") && raw.some((o) =>
      o !== i && startsWith(o.path, i.path) && (o.path.length > i.path.length || !ALTERNATIVE.test(o.message))
    ))
  ))
  const out: Array<Issue & { alternatives?: Array<string>; actual?: string }> = []
  for (const i of kept) {
    const path = pathOf(i.path)
    const alternative = ALTERNATIVE.exec(i.message)
    const merged = alternative === null ? undefined : out.find((o) => o.alternatives !== undefined && samePath(o.path, path) && o.actual === alternative[2])
    if (alternative !== null && merged !== undefined) merged.alternatives?.push(expectedOf(alternative[1] ?? ""))
    else if (alternative !== null) out.push({ path, message: i.message, code: ISSUE_CODES[i._tag] ?? "invalid", alternatives: [expectedOf(alternative[1] ?? "")], actual: alternative[2] ?? "" })
    else out.push({ path, message: i.message, code: ISSUE_CODES[i._tag] ?? "invalid" })
  }
  return out.map((i) => ({
    path: i.path,
    message: i.alternatives === undefined ? i.message : `Expected ${i.alternatives.join(" | ")}, actual ${i.actual}`,
    code: i.code
  }))
}

/** A schema failure as the issues of a 422, for input decoded outside the HTTP contract (bulk items). */
export const validationFailedOf = (error: ParseResult.ParseError): ValidationFailed =>
  ValidationFailed.of(decodeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)))
