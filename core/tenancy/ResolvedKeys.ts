import { Effect, type Option } from "effect"
import type { ApiKeyRecord } from "./ApiKey.js"

/**
 * API keys by the hash of their secret, as read at most `ttlMillis` ago: without it every
 * request would read its key. A plain map rather than `Cache`, whose bookkeeping cost a read
 * by id more than the read itself. Unknown hashes are kept too. A read that began before
 * `clear` is not kept: it may predate the revocation that cleared.
 */
export const makeResolvedKeys = (
  read: (hash: string) => Effect.Effect<Option.Option<ApiKeyRecord>>,
  ttlMillis: number,
  capacity: number
) => {
  const entries = new Map<string, { readonly key: Option.Option<ApiKeyRecord>; readonly at: number }>()
  let generation = 0
  const keep = (hash: string, key: Option.Option<ApiKeyRecord>, at: number, readIn: number) => {
    if (readIn !== generation) return
    entries.delete(hash)
    // Oldest first: a map iterates in insertion order.
    if (entries.size >= capacity) entries.delete(entries.keys().next().value as string)
    entries.set(hash, { key, at })
  }
  return {
    get: (hash: string, now: number): Effect.Effect<Option.Option<ApiKeyRecord>> => {
      const hit = entries.get(hash)
      if (hit !== undefined && now - hit.at < ttlMillis) return Effect.succeed(hit.key)
      const readIn = generation
      return Effect.tap(read(hash), (key) => Effect.sync(() => keep(hash, key, now, readIn)))
    },
    clear: Effect.sync(() => {
      generation++
      entries.clear()
    })
  }
}
