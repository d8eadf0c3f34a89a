import { Effect } from "effect"

/**
 * A slug made from the name is checked free and then written. On Postgres another write can
 * take it in between, and the insert fails as a conflict; trying again sees it taken and picks
 * the next candidate. A slug the client chose is not retried: its conflict is the answer.
 */
export const retryGeneratedSlug = <A, E extends { readonly _tag: string }, R>(
  generated: boolean,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => (generated ? Effect.retry(effect, { times: 3, while: (e) => e._tag === "Conflict" }) : effect)
