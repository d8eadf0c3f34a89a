import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option } from "effect"
import type { ApiKeyRecord } from "../../core/tenancy/ApiKey.js"
import { makeResolvedKeys } from "../../core/tenancy/ResolvedKeys.js"

const record = (hash: string): ApiKeyRecord => ({
  id: `id-${hash}`,
  organizationId: "org",
  name: hash,
  prefix: "pim_",
  keyHash: hash,
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
})

/** A store of keys that counts its reads; `unknown` hashes have no key. */
const counted = () => {
  const reads: Array<string> = []
  const read = (hash: string) =>
    Effect.sync(() => {
      reads.push(hash)
      return hash.startsWith("unknown") ? Option.none() : Option.some(record(hash))
    })
  return { reads, read }
}

describe("resolved keys", () => {
  it.effect("reads a hash once per time to live, unknown hashes included", () =>
    Effect.gen(function*() {
      const store = counted()
      const keys = makeResolvedKeys(store.read, 1_000, 10)
      const first = yield* keys.get("a", 0)
      yield* keys.get("a", 999)
      yield* keys.get("unknown", 0)
      const missing = yield* keys.get("unknown", 500)
      yield* keys.get("a", 1_000)
      expect(Option.map(first, (k) => k.id)).toEqual(Option.some("id-a"))
      expect(Option.isNone(missing)).toBe(true)
      expect(store.reads).toEqual(["a", "unknown", "a"])
    }))

  it.effect("forgets the oldest hash beyond its capacity, and everything on clear", () =>
    Effect.gen(function*() {
      const store = counted()
      const keys = makeResolvedKeys(store.read, 1_000, 2)
      for (const hash of ["a", "b", "c"]) yield* keys.get(hash, 0)
      yield* keys.get("b", 1)
      yield* keys.get("c", 1)
      yield* keys.get("a", 1)
      yield* keys.clear
      yield* keys.get("c", 2)
      expect(store.reads).toEqual(["a", "b", "c", "a", "c"])
    }))

  it.effect("does not keep a read that began before a clear", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const reads: Array<string> = []
      const keys = makeResolvedKeys(
        (hash) => Effect.zipRight(Deferred.await(release), Effect.sync(() => (reads.push(hash), Option.some(record(hash))))),
        1_000,
        10
      )
      const pending = yield* Effect.fork(keys.get("a", 0))
      yield* Effect.yieldNow()
      yield* keys.clear
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(pending)
      yield* keys.get("a", 1)
      expect(reads).toEqual(["a", "a"])
    }))
})
