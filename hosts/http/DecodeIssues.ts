/** The issues of a schema failure as the envelope carries them. */
export interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  readonly code: string
}

const ISSUE_CODES: Record<string, string> = {
  Missing: "required",
  Unexpected: "unrecognized_key",
  Type: "invalid_type",
  Forbidden: "forbidden"
}

const startsWith = (path: ReadonlyArray<PropertyKey>, prefix: ReadonlyArray<PropertyKey>) =>
  path.length >= prefix.length && prefix.every((k, i) => k === path[i])
const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) => a.length === b.length && startsWith(a, b)

const ALTERNATIVE = /^Expected (".*"), actual (.*)$/s

/**
 * One issue per bad value. A union reports each member it tried: an optional field also fails
 * its `undefined` member (dropped where another issue names the value or a part of it), and a
 * choice of literals fails each literal (merged into one issue listing them).
 */
export const decodeIssues = (raw: ReadonlyArray<{ readonly _tag: string; readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>): Array<Issue> => {
  const kept = raw.filter((i) => !(i.message.startsWith("Expected undefined, actual") && raw.some((o) => o !== i && startsWith(o.path, i.path))))
  const out: Array<Issue & { alternatives?: Array<string>; actual?: string }> = []
  for (const i of kept) {
    const alternative = ALTERNATIVE.exec(i.message)
    const merged = alternative === null ? undefined : out.find((o) => o.alternatives !== undefined && samePath(o.path, i.path) && o.actual === alternative[2])
    if (alternative !== null && merged !== undefined) merged.alternatives?.push(alternative[1] ?? "")
    else if (alternative !== null) out.push({ path: i.path, message: i.message, code: ISSUE_CODES[i._tag] ?? "invalid", alternatives: [alternative[1] ?? ""], actual: alternative[2] ?? "" })
    else out.push({ path: i.path, message: i.message, code: ISSUE_CODES[i._tag] ?? "invalid" })
  }
  return out.map((i) => ({
    path: i.path,
    message: i.alternatives === undefined ? i.message : `Expected ${i.alternatives.join(" | ")}, actual ${i.actual}`,
    code: i.code
  }))
}
