import { ParseResult, Schema } from "effect"

/**
 * A query of these fields that refuses every other key (422 naming it). A strict parse would do
 * the same, yet its parse options cost every request of a hot route (reads by id: about 7%);
 * the extra keys are kept by a record instead and refused by a filter.
 */
export const ClosedQuery = <Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const known = new Set(Object.keys(fields))
  return Schema.Struct(fields, Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Array(Schema.String)) })).pipe(
    Schema.filter((query: Readonly<Record<string, unknown>>) =>
      Object.keys(query)
        .filter((key) => !known.has(key))
        .map((key) => new ParseResult.Pointer(key, query, new ParseResult.Unexpected(query[key], "is unexpected")))
    )
  )
}

/** The query of a list that takes no parameters: any key is 422 naming it, as on every list. */
export const NoQuery = ClosedQuery({})
