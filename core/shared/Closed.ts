import { ParseResult, Schema, SchemaAST } from "effect"
import { isObject } from "./Bounded.js"
import { MAX_ISSUES } from "./Errors.js"
import { strict } from "./Fields.js"

/**
 * The object with its keys that `declared` lacks cut to the first `MAX_ISSUES + 1`, enough for a
 * refusal to list them and say it lists only some; the object itself when it has no more.
 */
const withFewUnknownKeys = (input: unknown, declared: ReadonlySet<string>): unknown => {
  if (!isObject(input)) return input
  const map = input as Record<string, unknown>
  const keys = Object.keys(map)
  const unknown = keys.filter((key) => !declared.has(key))
  if (unknown.length <= MAX_ISSUES + 1) return input
  const kept = new Set([...keys.filter((key) => declared.has(key)), ...unknown.slice(0, MAX_ISSUES + 1)])
  const fewer = {}
  // defineProperty, as an own key `__proto__` assigned would set the prototype instead.
  for (const key of keys) {
    if (kept.has(key)) Object.defineProperty(fewer, key, { value: map[key], enumerable: true, writable: true, configurable: true })
  }
  return fewer
}

/**
 * A closed map (a `strict` struct: an unknown key is 422), whose unknown keys are read no further
 * than a refusal lists them. Decoded whole, a map of 600,000 unknown keys held the event loop for
 * 3 to 5 s, building an issue for each key of which a refusal lists 100.
 */
export const ClosedStruct = <Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const struct = Schema.Struct(fields).annotations(strict)
  const declared = new Set(Object.keys(fields))
  return Schema.declare<typeof struct.Type, typeof struct.Encoded, readonly [typeof struct]>(
    [struct],
    {
      decode: (schema) => {
        const decode = ParseResult.decodeUnknownEither(schema)
        return (input, options) => decode(withFewUnknownKeys(input, declared), options)
      },
      encode: (schema) => ParseResult.encodeUnknownEither(schema)
    },
    { [SchemaAST.SurrogateAnnotationId]: struct.ast }
  )
}
