import { Effect, Schema } from "effect"
import { ValidationFailed } from "./Errors.js"

/** A field fixed at creation, sent back on an update: accepted only unchanged (`keepUnchanged`). */
export const Unchangeable = Schema.Unknown.annotations({ description: "fixed at creation: accepted only unchanged" })

/** Fails with one 422 `immutable` issue per field sent with another value than the record holds. */
export const keepUnchanged = (
  fields: ReadonlyArray<readonly [key: string | ReadonlyArray<string>, sent: unknown, current: unknown]>,
  same: (sent: unknown, current: unknown) => boolean = (sent, current) => sent === current
): Effect.Effect<void, ValidationFailed> => {
  const moved = fields.filter(([, sent, current]) => sent !== undefined && !same(sent, current))
  return moved.length === 0
    ? Effect.void
    : Effect.fail(ValidationFailed.of(moved.map(([key]) => ({ path: typeof key === "string" ? [key] : key, message: "cannot be changed after creation", code: "immutable" }))))
}
