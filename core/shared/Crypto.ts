import { Context, type Effect } from "effect"

/** Randomness, ids and digests: what pure code cannot do for itself. */
export class Crypto extends Context.Tag("catalog/Crypto")<Crypto, {
  /** A new time-ordered UUID (v7). */
  readonly uuid: Effect.Effect<string>
  /** `bytes` cryptographically random bytes, base64url without padding. */
  readonly randomToken: (bytes: number) => Effect.Effect<string>
  /** SHA-256 of the UTF-8 text, lower-case hex. */
  readonly sha256Hex: (text: string) => Effect.Effect<string>
  /** HMAC-SHA256 of the bytes keyed with `secret`, lower-case hex. */
  readonly hmacSha256Hex: (secret: string, data: Uint8Array) => Effect.Effect<string>
  /** Compares two strings in time that does not depend on where they differ. */
  readonly safeEqual: (a: string, b: string) => boolean
}>() {}
