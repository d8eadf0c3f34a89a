import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/**
 * A 201 names the record it made in `Location`, the path its `GET` reads it at, where the API
 * has one (an attribute group, a family attachment, a relationship, an attached modifier, an API
 * key and an organization have none).
 */
export const locatedAt = <A, E, R>(pathOf: (made: A) => string) => (self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tap(self, (made) =>
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(response.status === 201 ? HttpServerResponse.setHeader(response, "location", pathOf(made)) : response)))

/** An endpoint's document with its 201 carrying `Location` (annotated as its `OpenApi.Transform`). */
export const documentLocation = (operation: Record<string, any>): Record<string, any> => {
  const created = operation.responses?.["201"]
  if (created !== undefined) {
    created.headers = { Location: { description: "The path the record made is read at", schema: { type: "string" } } }
  }
  return operation
}
