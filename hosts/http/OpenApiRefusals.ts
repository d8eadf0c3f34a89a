import { OpenApiJsonSchema } from "@effect/platform"
import { Schema } from "effect"
import { ValidationFailedWire } from "./Errors.js"

/**
 * What the edge answers on any route before HttpApi decodes the request (see EdgeLive), in the
 * error envelope with a Fastify-style code: HttpApi would document its own 400 body instead,
 * which the API never sends. And what it answers for any failure nothing else handled.
 */
const EDGE_REFUSALS: Readonly<Record<string, { readonly description: string; readonly codes: ReadonlyArray<string> }>> = {
  "400": {
    description: "The body is not valid JSON (its bytes not UTF-8 among them), or is empty where the route reads JSON",
    codes: ["FST_ERR_CTP_INVALID_JSON_BODY", "FST_ERR_CTP_EMPTY_JSON_BODY"]
  },
  "413": { description: "The body is larger than the route takes", codes: ["FST_ERR_CTP_BODY_TOO_LARGE"] },
  "415": { description: "The body is of a type the route does not take", codes: ["FST_ERR_CTP_INVALID_MEDIA_TYPE"] },
  "500": { description: "Anything unhandled, with the message `internal server error` and nothing else", codes: ["internal"] }
}

/** The error envelope with one of `codes`. */
const envelopeOf = (codes: ReadonlyArray<string>) =>
  OpenApiJsonSchema.make(Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(...codes), message: Schema.String }) }))

/**
 * The edge's own 422s, which any route answers: a route that decodes a body, path or query
 * documents its 422 already.
 */
const EDGE_VALIDATION =
  "The query or body holds text no database can store, or the query escapes that do not decode (`invalid_character`), nests arrays and objects too deep " +
  "(`too_deep`), or a query key names `__proto__` (`unrecognized_key`)"

/** HttpApi's own 400 body and what only it refers to. */
const DECODE_ERROR_SCHEMAS = ["HttpApiDecodeError", "Issue", "PropertyKey"]

type Operation = { responses?: Record<string, unknown> }

/** The OpenAPI document with the edge's refusals on every operation, each in the error envelope. */
export const documentEdgeRefusals = (spec: Record<string, any>): Record<string, any> => {
  const validation = OpenApiJsonSchema.make(ValidationFailedWire)
  for (const methods of Object.values(spec.paths ?? {}) as Array<Record<string, Operation>>) {
    for (const operation of Object.values(methods)) {
      const responses: Record<string, unknown> = { ...operation.responses }
      for (const [status, { codes, description }] of Object.entries(EDGE_REFUSALS)) {
        responses[status] = { description, content: { "application/json": { schema: envelopeOf(codes) } } }
      }
      responses["422"] ??= { description: EDGE_VALIDATION, content: { "application/json": { schema: validation } } }
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
    }
  }
  const schemas: Record<string, unknown> = { ...spec.components?.schemas }
  for (const name of DECODE_ERROR_SCHEMAS) delete schemas[name]
  spec.components = { ...spec.components, schemas }
  return spec
}
