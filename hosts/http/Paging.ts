import { Schema } from "effect"
import { IntegerText } from "../../core/shared/Fields.js"

/** An integer query parameter within bounds (query values arrive as text). */
export const IntegerParam = (min: number, max: number, fallback?: number) =>
  IntegerText("must be an integer", `an integer from ${min} to ${max}${fallback === undefined ? "" : `; ${fallback} when absent`}`).pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(min, max, { message: () => `must be between ${min} and ${max}` })
  )

/** `limit` (1 to `maxLimit`) and `offset` (>= 0) of a paged list. */
export const pageParams = (maxLimit: number) => ({
  limit: Schema.optional(IntegerParam(1, maxLimit, 50)),
  offset: Schema.optional(IntegerParam(0, Number.MAX_SAFE_INTEGER, 0))
})
