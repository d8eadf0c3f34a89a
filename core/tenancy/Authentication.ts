import { Cache, Context, Duration, Effect, Exit, FiberSet, Layer, Option } from "effect"
import { Crypto } from "../shared/Crypto.js"
import { Forbidden, Unauthenticated, ValidationFailed } from "../shared/Errors.js"
import { isUuid, toTimestamp } from "../shared/Fields.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import type { Actor, Role } from "./Actor.js"
import { type ApiKeyRecord, KEY_PREFIX } from "./ApiKey.js"
import { ApiKeyRepository } from "./ApiKeyRepository.js"
import type { Principal } from "./Principal.js"
import { SessionVerifier } from "./SessionVerifier.js"
import { makeResolvedKeys } from "./ResolvedKeys.js"
import { UserRepository } from "./UserRepository.js"

const KEY_FORMAT = /^pim_[A-Za-z0-9_-]{43}$/
/** A resolved key is trusted this long: a key revoked by another process may work until then (expiry is checked on every request). */
const KEY_CACHE_TTL = Duration.seconds(60)
const KEY_CACHE_CAPACITY = 10_000
/** Last-used is written at most this often per key, by this process and by the others on the database. */
const LAST_USED_EVERY_MS = 60_000

export interface ResolvedTenant {
  readonly organizationId: string
  readonly actor: Actor
  readonly role: Role | null
}

const unauthenticated = (message: string) => new Unauthenticated({ message })

/** Turns the credentials of a request into a principal, and a principal into a tenant. */
export class Authentication extends Context.Tag("catalog/Authentication")<Authentication, {
  /** Resolves `Authorization: Bearer ...`: an API key (`pim_...`) or an admin session token. */
  readonly principal: (bearer: string | undefined) => Effect.Effect<Principal, Unauthenticated>
  /** The organization the principal acts in: the key's own, or the one a session selects. */
  readonly tenant: (
    principal: Principal,
    organizationHeader: string | undefined
  ) => Effect.Effect<ResolvedTenant, Forbidden | ValidationFailed>
  /** Forgets every cached key resolution (after revocations and tenant deletions). */
  readonly invalidateKeys: Effect.Effect<void>
}>() {}

const makeAuthentication = Effect.gen(function*() {
  const keys = yield* ApiKeyRepository
  const users = yield* UserRepository
  const sessions = yield* SessionVerifier
  const crypto = yield* Crypto
  const uow = yield* UnitOfWork

  const resolvedKeys = makeResolvedKeys((hash) => uow.system(keys.findByHash(hash)), Duration.toMillis(KEY_CACHE_TTL), KEY_CACHE_CAPACITY)
  const lastTouched = new Map<string, number>()
  // Last-use writes run in the background, but finish before the catalog closes its connections.
  const touches = yield* FiberSet.make()
  yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(touches))
  // Only a user recorded is remembered: a sign-in the database refused (503) is tried again by
  // the next request, not answered from the cache until its entry expires.
  const seenUsers = yield* Cache.makeWith({
    capacity: KEY_CACHE_CAPACITY,
    timeToLive: (exit) => (Exit.isSuccess(exit) ? KEY_CACHE_TTL : Duration.zero),
    lookup: (identity: string) => {
      const [userId, email] = JSON.parse(identity) as [string, string | null]
      return recordUser(userId, email)
    }
  })

  function recordUser(userId: string, email: string | null) {
    return Effect.gen(function*() {
      const now = toTimestamp(yield* Effect.clockWith((c) => c.currentTimeMillis))
      yield* uow.system(
        Effect.gen(function*() {
          yield* users.upsert({ id: userId, email }, now)
          if (email !== null) yield* users.claimInvites(userId, email, now)
        })
      )
    })
  }

  const touch = (key: ApiKeyRecord, nowMillis: number) => {
    const last = lastTouched.get(key.id) ?? 0
    if (nowMillis - last < LAST_USED_EVERY_MS) return Effect.void
    lastTouched.set(key.id, nowMillis)
    if (lastTouched.size > KEY_CACHE_CAPACITY) lastTouched.clear()
    return FiberSet.run(touches, uow.system(keys.touchLastUsed(key.id, toTimestamp(nowMillis), toTimestamp(nowMillis - LAST_USED_EVERY_MS)))).pipe(Effect.asVoid)
  }

  const checked = (found: Option.Option<ApiKeyRecord>, now: number): Effect.Effect<Principal, Unauthenticated> => {
    if (Option.isNone(found)) return Effect.fail(unauthenticated("unknown API key"))
    const key = found.value
    if (key.revokedAt !== null) return Effect.fail(unauthenticated("API key revoked"))
    if (key.expiresAt !== null && key.expiresAt <= toTimestamp(now)) return Effect.fail(unauthenticated("API key expired"))
    return Effect.as(touch(key, now), { _tag: "ApiKey", keyId: key.id, organizationId: key.organizationId } satisfies Principal)
  }

  // Every request with a key runs this: flat, without a generator.
  const apiKey = (token: string) =>
    KEY_FORMAT.test(token)
      ? Effect.flatMap(crypto.sha256Hex(token), (hash) =>
        Effect.clockWith((clock) => {
          const now = clock.unsafeCurrentTimeMillis()
          return Effect.flatMap(resolvedKeys.get(hash, now), (found) => checked(found, now))
        }))
      : Effect.fail(unauthenticated("malformed API key"))

  const session = (token: string) =>
    Effect.gen(function*() {
      const claims = yield* sessions.verify(token)
      yield* seenUsers.get(JSON.stringify([claims.userId, claims.email]))
      return { _tag: "User", userId: claims.userId, email: claims.email } satisfies Principal
    })

  const principal = (bearer: string | undefined): Effect.Effect<Principal, Unauthenticated> => {
    if (bearer === undefined || bearer.length === 0) return Effect.fail(unauthenticated("missing credentials"))
    return bearer.startsWith(KEY_PREFIX) ? apiKey(bearer) : session(bearer)
  }

  const tenant = (p: Principal, organizationHeader: string | undefined): Effect.Effect<ResolvedTenant, Forbidden | ValidationFailed> =>
    p._tag === "ApiKey"
      ? Effect.succeed({ organizationId: p.organizationId, actor: { type: "api_key", id: p.keyId }, role: null })
      : selectedTenant(p, organizationHeader)

  const selectedTenant = (p: Exclude<Principal, { readonly _tag: "ApiKey" }>, organizationHeader: string | undefined) =>
    Effect.gen(function*() {
      switch (p._tag) {
        case "Service":
          return yield* new Forbidden({ message: "the service key only creates organizations" })
        case "User": {
          if (organizationHeader === undefined) {
            return yield* new Forbidden({ message: "select an organization with the x-organization-id header" })
          }
          if (!isUuid(organizationHeader)) {
            return yield* ValidationFailed.one(["headers", "x-organization-id"], "must be a UUID", "invalid")
          }
          const role = yield* uow.system(users.roleIn(organizationHeader.toLowerCase(), p.userId))
          if (Option.isNone(role)) return yield* new Forbidden({ message: "no membership in the requested organization" })
          return { organizationId: organizationHeader.toLowerCase(), actor: { type: "user", id: p.userId }, role: role.value } as const
        }
      }
    })

  return Authentication.of({ principal, tenant, invalidateKeys: resolvedKeys.clear })
})

export const AuthenticationLive = Layer.scoped(Authentication, makeAuthentication)
