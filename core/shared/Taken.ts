import { Effect } from "effect"
import { Conflict, ValidationFailed } from "./Errors.js"

/**
 * The specification's 409 names its clashes (a product slug, a modifier code, a brand name, a
 * modifier attached twice, a family in use), and its tables answer the writes of organizations
 * and of the schema (groups, attributes, families, attachments) with 403, 404 or 422 only. On
 * those writes a clash is a rejected field.
 */
export const takenAs = (path: ReadonlyArray<string>, message: string, code = "taken") =>
<A, E, R>(write: Effect.Effect<A, E | Conflict, R>) =>
  Effect.catchIf(
    write,
    (error): error is Conflict => error instanceof Conflict,
    () => Effect.fail(ValidationFailed.one(path, message, code))
  )
