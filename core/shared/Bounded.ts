import { Option, ParseResult, Schema, SchemaAST } from "effect"

/**
 * `bounded`, a refinement of how many items or keys a value holds, with that check made first:
 * a value over the bound is refused for its size alone (the refinement's own issue), the rest
 * of it unread. Checked after them, as a refinement is, a body of five million bad tags cost
 * 13 s and 2 GB to refuse, each item's failure built before the count was looked at.
 * `sized` says which raw inputs the check applies to. Documented as what it is, `bounded`.
 */
const sizeFirst = <A, I>(bounded: Schema.Schema<A, I>, sized: (input: unknown) => boolean) => {
  const bound = bounded.ast
  const sizeIssue = (input: unknown, options: SchemaAST.ParseOptions): ParseResult.ParseIssue | undefined => {
    if (!sized(input) || !SchemaAST.isRefinement(bound)) return undefined
    const issue = bound.filter(input, options, bound)
    return Option.isSome(issue) ? new ParseResult.Refinement(bound, input, "Predicate", issue.value) : undefined
  }
  return Schema.declare<A, I, readonly [typeof bounded]>(
    [bounded],
    {
      decode: (schema) => {
        const decode = ParseResult.decodeUnknownEither(schema)
        return (input, options) => {
          const issue = sizeIssue(input, options)
          return issue === undefined ? decode(input, options) : ParseResult.fail(issue)
        }
      },
      encode: (schema) => ParseResult.encodeUnknownEither(schema)
    },
    { [SchemaAST.SurrogateAnnotationId]: bound }
  )
}

export const isObject = (input: unknown) => typeof input === "object" && input !== null && !Array.isArray(input)

/** An array of at most `max` items, its length checked before its items (`message` beyond). */
export const BoundedArray = <A, I>(item: Schema.Schema<A, I>, max: number, message: string) =>
  sizeFirst(Schema.Array(item).pipe(Schema.maxItems(max, { message: () => message })), Array.isArray)

/** A map of at most `max` keys, counted before its values are read (`message` beyond). */
export const BoundedMap = <A extends object, I extends object>(map: Schema.Schema<A, I>, max: number, message: string) =>
  sizeFirst(
    map.pipe(Schema.filter((m) => Object.keys(m).length <= max, { message: () => message, jsonSchema: { maxProperties: max } })),
    isObject
  )
