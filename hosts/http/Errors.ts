import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, Forbidden, NotFound, StorageUnavailable, TooLarge, Unauthenticated, ValidationFailed } from "../../core/shared/Errors.js"

/** The one error envelope of the API: `{error: {code, message, details?}}`. */
export const Envelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    details: Schema.optional(Schema.Unknown)
  })
})
export type Envelope = typeof Envelope.Type

export const envelope = (code: string, message: string, details?: unknown): Envelope => ({
  error: details === undefined ? { code, message } : { code, message, details }
})

// Each core error goes on the wire as the envelope with its status: mapped here, once.

export const NotFoundWire = Schema.transform(Envelope, NotFound, {
  strict: true,
  decode: (e) => ({ _tag: "NotFound" as const, entity: "entity", id: e.error.message }),
  encode: (e) => envelope("not_found", `${e.entity} ${e.id} not found`)
}).annotations(HttpApiSchema.annotations({ status: 404 }))

export const ConflictWire = Schema.transform(Envelope, Conflict, {
  strict: true,
  decode: (e) => ({ _tag: "Conflict" as const, message: e.error.message }),
  encode: (e) => envelope("conflict", e.message)
}).annotations(HttpApiSchema.annotations({ status: 409 }))

export const ForbiddenWire = Schema.transform(Envelope, Forbidden, {
  strict: true,
  decode: (e) => ({ _tag: "Forbidden" as const, message: e.error.message }),
  encode: (e) => envelope("forbidden", e.message)
}).annotations(HttpApiSchema.annotations({ status: 403 }))

export const UnauthenticatedWire = Schema.transform(Envelope, Unauthenticated, {
  strict: true,
  decode: (e) => ({ _tag: "Unauthenticated" as const, message: e.error.message }),
  encode: (e) => envelope("unauthenticated", e.message)
}).annotations(HttpApiSchema.annotations({ status: 401 }))

const IssueList = Schema.Struct({ issues: ValidationFailed.fields.issues, truncated: Schema.optional(Schema.Boolean) })

/** `details` is `{issues}`, plus `truncated: true` where `issues` lists only the first `MAX_ISSUES` of them. */
export const ValidationFailedWire = Schema.transform(Envelope, ValidationFailed, {
  strict: true,
  decode: (e) => {
    const details = Schema.is(IssueList)(e.error.details) ? e.error.details : { issues: [] }
    return {
      _tag: "ValidationFailed" as const,
      message: e.error.message,
      issues: details.issues,
      ...(details.truncated === true ? { truncated: true } : {})
    }
  },
  encode: (e) => envelope("validation_failed", e.message, e.truncated === true ? { issues: e.issues, truncated: true } : { issues: e.issues })
}).annotations(HttpApiSchema.annotations({ status: 422 }))

/** A refusal as its 422 envelope, for refusals the edge answers itself. */
export const validationFailedEnvelope = (e: ValidationFailed): Envelope => Schema.encodeSync(ValidationFailedWire)(e)

/** A core error as the envelope's `error` object, for failures reported inside a 200 body (bulk items). */
export const errorObject = (e: NotFound | Conflict | ValidationFailed): Envelope["error"] => {
  switch (e._tag) {
    case "NotFound":
      return Schema.encodeSync(NotFoundWire)(e).error
    case "Conflict":
      return Schema.encodeSync(ConflictWire)(e).error
    case "ValidationFailed":
      return Schema.encodeSync(ValidationFailedWire)(e).error
  }
}

/** An upload over its limit, found while streaming it: the same answer as the edge's Content-Length check. */
export const TooLargeWire = Schema.transform(Envelope, TooLarge, {
  strict: true,
  decode: (e) => ({ _tag: "TooLarge" as const, message: e.error.message }),
  encode: (e) => envelope("FST_ERR_CTP_BODY_TOO_LARGE", e.message)
}).annotations(HttpApiSchema.annotations({ status: 413 }))

/** The database cannot do what was asked (see StorageUnavailable): every operation may meet it. */
export const UnavailableWire = Schema.transform(Envelope, StorageUnavailable, {
  strict: true,
  decode: (e) => ({ _tag: "StorageUnavailable" as const, message: e.error.message }),
  encode: (e) => envelope("unavailable", e.message)
}).annotations(HttpApiSchema.annotations({ status: 503 }))
