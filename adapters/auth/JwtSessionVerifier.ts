import { Effect, Layer, Option, Redacted } from "effect"
import { jwtVerify } from "jose"
import { Unauthenticated } from "../../core/shared/Errors.js"
import { isEmailAddress, isUuid, unstorableText } from "../../core/shared/Fields.js"
import { SessionVerifier } from "../../core/tenancy/SessionVerifier.js"

/** An address both databases store alike: no control characters or unpaired surrogates, RFC 5321's length. */
const isEmail = (u: unknown): u is string =>
  typeof u === "string" && u.length <= 254 && unstorableText(u) === undefined &&
  isEmailAddress(u)

/**
 * HS256 session tokens: `sub` is the user id (uuid), `email` optional, `exp` required.
 * Without a secret every session is refused.
 */
export const layer = (secret: Option.Option<Redacted.Redacted>) =>
  Layer.succeed(
    SessionVerifier,
    SessionVerifier.of({
      verify: (token) =>
        Option.match(secret, {
          onNone: () => Effect.fail(new Unauthenticated({ message: "sessions are not enabled on this deployment" })),
          onSome: (key) =>
            Effect.tryPromise({
              try: () =>
                jwtVerify(token, new TextEncoder().encode(Redacted.value(key)), {
                  algorithms: ["HS256"],
                  requiredClaims: ["exp", "sub"]
                }),
              catch: () => new Unauthenticated({ message: "invalid or expired session token" })
            }).pipe(
              Effect.flatMap(({ payload }) => {
                const sub = payload.sub
                if (sub === undefined || !isUuid(sub)) {
                  return Effect.fail(new Unauthenticated({ message: "session token subject must be a user id" }))
                }
                const email = payload["email"]
                if (email !== undefined && !isEmail(email)) {
                  return Effect.fail(new Unauthenticated({ message: "session token email must be an email address" }))
                }
                return Effect.succeed({ userId: sub.toLowerCase(), email: email === undefined ? null : email.toLowerCase() })
              })
            )
        })
    })
  )
