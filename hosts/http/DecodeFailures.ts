import { HttpApiError } from "@effect/platform"
import { Effect, ParseResult } from "effect"
import { firstFailedChecks } from "../../core/shared/ParseIssues.js"
import { CatalogApi } from "./Api.js"
import { repeatedKeysSaid } from "./RepeatedKeys.js"

/** Decode failures whose issues were cut to the first failed checks. */
const cutShort = new WeakSet<HttpApiError.HttpApiDecodeError>()

/** Whether the failure lists only some of the request's issues. */
export const isCutShort = (error: HttpApiError.HttpApiDecodeError): boolean => cutShort.has(error)

/** A schema failure as HttpApi reports it, formatting only its first failed checks. */
const decodeFailure = (error: ParseResult.ParseError): HttpApiError.HttpApiDecodeError => {
  const first = firstFailedChecks(error)
  const failure = new HttpApiError.HttpApiDecodeError({
    issues: ParseResult.ArrayFormatter.formatErrorSync(first.error),
    message: ParseResult.TreeFormatter.formatErrorSync(first.error)
  })
  if (first.cut) cutShort.add(failure)
  return failure
}

// HttpApi formats every schema failure of a request (path, query, body) whole, twice (as a
// list and as a tree) before any middleware sees it: for a body of a million bad values,
// minutes of CPU and gigabytes. It calls this static to do so, looked up when the API's routes
// are built: replaced here, it formats only what the 422 lists, and says of a query key sent
// twice that it was.
const sayRepeated = repeatedKeysSaid(CatalogApi)
HttpApiError.HttpApiDecodeError.refailParseError = (error) => Effect.fail(decodeFailure(sayRepeated(error)))
