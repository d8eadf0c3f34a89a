import { Effect, Schema } from "effect"
import { hasEnoughIssues, ValidationFailed } from "./Errors.js"
import { unstorableText } from "./Fields.js"
import { validationFailedOf } from "./ParseIssues.js"

/** How deep input may nest arrays and objects: the checks after decoding (storable text, attribute values) recurse. */
export const MAX_JSON_DEPTH = 64

/**
 * Text Postgres cannot store: U+0000 (in text and jsonb) and unpaired UTF-16 surrogates
 * (in jsonb). Both are refused on every database, so an input means the same everywhere.
 */
export interface TextIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  readonly code: "invalid_character"
}

/**
 * Issues for the strings (object keys included) of a JSON value that cannot be stored, in the
 * order of the value, up to the issues a refusal can use (`hasEnoughIssues`): a body of a
 * million such strings costs what one of a hundred does. A path is made only for an issue.
 */
export const unstorableStrings = (value: unknown, path: ReadonlyArray<string | number> = []): Array<TextIssue> => {
  const found: Array<TextIssue> = []
  const at: Array<string | number> = [...path]
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      const message = unstorableText(v)
      if (message !== undefined) found.push({ path: [...at], message, code: "invalid_character" })
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length && !hasEnoughIssues(found); i++) {
        at.push(i)
        visit(v[i])
        at.pop()
      }
    } else if (typeof v === "object" && v !== null) {
      for (const k of Object.keys(v)) {
        if (hasEnoughIssues(found)) return
        const key = unstorableText(k)
        at.push(k)
        if (key === undefined) visit((v as Record<string, unknown>)[k])
        else found.push({ path: [...at], message: `key ${key}`, code: "invalid_character" })
        at.pop()
      }
    }
  }
  visit(value)
  return found
}

/** Whether a value nests arrays and objects deeper than `max`; walked without recursion, so any depth (or a cycle) is answered. */
const nestsDeeper = (value: unknown, max: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, depth] = next
    if (typeof v !== "object" || v === null) continue
    if (depth >= max) return true
    for (const child of Object.values(v)) pending.push([child, depth + 1])
  }
  return false
}

/**
 * Checks untrusted input against one of the use cases' input schemas, as the HTTP host checks a
 * request: nesting past `MAX_JSON_DEPTH` and text no database stores (U+0000, unpaired
 * surrogates) are refused first, then every issue of the schema at once, each refusal the
 * `ValidationFailed` whose issues a 422 carries. The use cases trust what they are given (a
 * typed value is not a checked one: an empty name or a malformed slug would be stored as is),
 * so an embedding app decodes whatever did not come from its own code first. Query schemas
 * decode from text, as URL parameters come.
 *
 *   const input = yield* decodeInput(CreateProduct)(JSON.parse(body))
 */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = Schema.decodeUnknown(schema, { errors: "all" })
  return (input: unknown): Effect.Effect<A, ValidationFailed> => {
    if (nestsDeeper(input, MAX_JSON_DEPTH)) {
      return ValidationFailed.one([], `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, "too_deep")
    }
    const unstorable = unstorableStrings(input)
    if (unstorable.length > 0) return Effect.fail(ValidationFailed.of(unstorable))
    return Effect.mapError(decode(input), validationFailedOf)
  }
}
