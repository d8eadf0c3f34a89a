import type { Schema } from "effect"

/**
 * A request body's schema that reports every issue at once: a client fixes its request in one
 * round, not one field per try. (The list queries' schemas say so themselves, being strict.)
 */
export const everyIssue = <A, I, R>(schema: Schema.Schema<A, I, R>): Schema.Schema<A, I, R> =>
  schema.annotations({ parseOptions: { errors: "all" } })
