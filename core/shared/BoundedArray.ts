import { Option, ParseResult, Schema, SchemaAST } from "effect"

/**
 * An array of at most `max` items whose length is checked before its items: one over the bound
 * is refused for its length alone (`message`), its items unread. Checked after them, as
 * `Schema.maxItems` alone does, a body of five million bad tags cost 13 s and 2 GB to refuse,
 * each item's failure built before the length was looked at. Documented as what it is,
 * `Schema.Array(item)` with `maxItems`.
 */
export const BoundedArray = <A, I>(item: Schema.Schema<A, I>, max: number, message: string) => {
  const checked = Schema.Array(item).pipe(Schema.maxItems(max, { message: () => message }))
  const bound = checked.ast
  /** The failure of `maxItems`, found from the length alone. */
  const lengthIssue = (input: unknown, options: SchemaAST.ParseOptions): Option.Option<ParseResult.ParseIssue> =>
    Array.isArray(input) && SchemaAST.isRefinement(bound)
      ? Option.map(bound.filter(input, options, bound), (issue) => new ParseResult.Refinement(bound, input, "Predicate", issue))
      : Option.none()
  return Schema.declare<ReadonlyArray<A>, ReadonlyArray<I>, readonly [typeof checked]>(
    [checked],
    {
      decode: (array) => (input, options) =>
        Option.match(lengthIssue(input, options), {
          onNone: () => ParseResult.decodeUnknown(array)(input, options),
          onSome: ParseResult.fail
        }),
      encode: (array) => (input, options) => ParseResult.encodeUnknown(array)(input, options)
    },
    { [SchemaAST.SurrogateAnnotationId]: bound }
  )
}
