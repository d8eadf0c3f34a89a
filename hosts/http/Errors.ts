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

export const envelope = <Code extends string>(code: Code, message: string, details?: unknown): Envelope & { readonly error: { readonly code: Code } } => ({
  error: details === undefined ? { code, message } : { code, message, details }
})

/** The envelope of one error code, as the document lists it for that code's status. */
const EnvelopeOf = <Code extends string>(code: Code) =>
  Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) })

// Each core error goes on the wire as the envelope with its status: mapped here, once.

export const NotFoundWire = Schema.transform(EnvelopeOf("not_found"), NotFound, {
  strict: true,
  decode: (e) => ({ _tag: "NotFound" as const, entity: "entity", id: e.error.message }),
  encode: (e) => envelope("not_found", `${e.entity} ${e.id} not found`)
}).annotations(HttpApiSchema.annotations({ status: 404 }))

export const ConflictWire = Schema.transform(EnvelopeOf("conflict"), Conflict, {
  strict: true,
  decode: (e) => ({ _tag: "Conflict" as const, message: e.error.message }),
  encode: (e) => envelope("conflict", e.message)
}).annotations(HttpApiSchema.annotations({ status: 409 }))

export const ForbiddenWire = Schema.transform(EnvelopeOf("forbidden"), Forbidden, {
  strict: true,
  decode: (e) => ({ _tag: "Forbidden" as const, message: e.error.message }),
  encode: (e) => envelope("forbidden", e.message)
}).annotations(HttpApiSchema.annotations({ status: 403 }))

export const UnauthenticatedWire = Schema.transform(EnvelopeOf("unauthenticated"), Unauthenticated, {
  strict: true,
  decode: (e) => ({ _tag: "Unauthenticated" as const, message: e.error.message }),
  encode: (e) => envelope("unauthenticated", e.message)
}).annotations(HttpApiSchema.annotations({ status: 401 }))

/** `details` is `{issues}`, plus `truncated: true` where `issues` lists only the first `MAX_ISSUES` of them. */
const ValidationEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literal("validation_failed"),
    message: Schema.String,
    details: Schema.Struct({ issues: ValidationFailed.fields.issues, truncated: Schema.optional(Schema.Boolean) })
  })
})

export const ValidationFailedWire = Schema.transform(ValidationEnvelope, ValidationFailed, {
  strict: true,
  decode: (e) => ({
    _tag: "ValidationFailed" as const,
    message: e.error.message,
    issues: e.error.details.issues,
    ...(e.error.details.truncated === true ? { truncated: true } : {})
  }),
  encode: (e) => ({
    error: {
      code: "validation_failed" as const,
      message: e.message,
      details: e.truncated === true ? { issues: e.issues, truncated: true } : { issues: e.issues }
    }
  })
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
export const TooLargeWire = Schema.transform(EnvelopeOf("FST_ERR_CTP_BODY_TOO_LARGE"), TooLarge, {
  strict: true,
  decode: (e) => ({ _tag: "TooLarge" as const, message: e.error.message }),
  encode: (e) => envelope("FST_ERR_CTP_BODY_TOO_LARGE", e.message)
}).annotations(HttpApiSchema.annotations({ status: 413 }))

/** The database cannot do what was asked (see StorageUnavailable): every operation may meet it. */
export const UnavailableWire = Schema.transform(EnvelopeOf("unavailable"), StorageUnavailable, {
  strict: true,
  decode: (e) => ({ _tag: "StorageUnavailable" as const, message: e.error.message }),
  encode: (e) => envelope("unavailable", e.message)
}).annotations(HttpApiSchema.annotations({ status: 503 }))
