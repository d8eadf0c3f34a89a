/**
 * Text Postgres cannot store: U+0000 (in text and jsonb) and unpaired UTF-16 surrogates
 * (in jsonb). Both are refused on every database, so a request means the same everywhere.
 */
export interface TextIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  readonly code: "invalid_character"
}

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const problem = (s: string): string | undefined =>
  s.includes("\u0000") ? "must not contain the character U+0000" : UNPAIRED.test(s) ? "must not contain an unpaired UTF-16 surrogate" : undefined

/** Issues for every string (object keys included) of a JSON value that cannot be stored. */
export const unstorableStrings = (value: unknown, path: ReadonlyArray<string | number> = []): Array<TextIssue> => {
  if (typeof value === "string") {
    const message = problem(value)
    return message === undefined ? [] : [{ path, message, code: "invalid_character" }]
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => unstorableStrings(v, [...path, i]))
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => {
      const key = problem(k)
      return key === undefined ? unstorableStrings(v, [...path, k]) : [{ path: [...path, k], message: `key ${key}`, code: "invalid_character" as const }]
    })
  }
  return []
}

/**
 * Whether JSON text may hold such a string: in valid JSON both can only be written as `\u`
 * escapes (a raw U+0000 is not valid JSON, and undecodable bytes arrive as U+FFFD), so text
 * without one needs no parse.
 */
export const mayHoldUnstorable = (jsonText: string): boolean => jsonText.includes("\\u")

/** Issues for query parameters (keys and values) that cannot be stored or compared. */
export const unstorableParams = (params: URLSearchParams): Array<TextIssue> =>
  [...params].flatMap(([k, v]) => unstorableStrings({ [k]: v }))
