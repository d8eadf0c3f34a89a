import { Schema } from "effect"
import { IntegerParam } from "../../core/shared/Fields.js"

/** `limit` (1 to `maxLimit`) and `offset` (>= 0) of a paged list. */
export const pageParams = (maxLimit: number) => ({
  limit: Schema.optional(IntegerParam(1, maxLimit, 50)),
  offset: Schema.optional(IntegerParam(0, Number.MAX_SAFE_INTEGER, 0))
})
