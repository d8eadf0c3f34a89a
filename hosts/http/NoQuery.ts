import { ParseResult, Schema } from "effect"

// A struct without fields takes any object (Effect checks no keys of `{}`), so the keys are refused here.
/** The query of a list that takes no parameters: any key is 422 naming it, as on every list. */
export const NoQuery = Schema.Struct({}).pipe(
  Schema.filter((query: Readonly<Record<string, unknown>>) =>
    Object.keys(query).map((key) => new ParseResult.Pointer(key, query, new ParseResult.Unexpected(query[key], "is unexpected")))
  )
)
