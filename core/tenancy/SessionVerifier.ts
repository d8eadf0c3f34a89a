import { Context, type Effect } from "effect"
import type { Unauthenticated } from "../shared/Errors.js"

interface SessionClaims {
  readonly userId: string
  readonly email: string | null
}

/** Checks an admin session token (a signed JWT) and reads who it names. */
export class SessionVerifier extends Context.Tag("catalog/SessionVerifier")<SessionVerifier, {
  readonly verify: (token: string) => Effect.Effect<SessionClaims, Unauthenticated>
}>() {}
