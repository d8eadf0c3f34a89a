import { Context, type Effect, type Option, type Stream } from "effect"
import type { TooLarge } from "./Errors.js"

/** What a streamed write measured on the way to storage. */
interface StoredBlob {
  readonly size: number
  /** Lower-case hex SHA-256 of the bytes stored. */
  readonly sha256: string
}

/** Where media and tenant exports are kept. */
export class BlobStore extends Context.Tag("catalog/BlobStore")<BlobStore, {
  /** Stores the bytes under `key` and returns once they are durable. */
  readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void>
  /**
   * Streams `content` to `key`, counting and hashing it as it goes, and returns once it is
   * durable. Past `maxBytes` it stops reading and fails with TooLarge; on any failure or
   * interruption nothing is left under `key`.
   */
  readonly putStream: <E>(key: string, content: Stream.Stream<Uint8Array, E>, maxBytes: number) => Effect.Effect<StoredBlob, E | TooLarge>
  readonly get: (key: string) => Effect.Effect<Uint8Array | undefined>
  /** The bytes under `key` as a stream, read as it is consumed; None when nothing is stored there. */
  readonly stream: (key: string) => Effect.Effect<Option.Option<Stream.Stream<Uint8Array>>>
  readonly remove: (key: string) => Effect.Effect<void>
  /** Removes every blob whose key starts with `folder` and `/`; a folder holding none is no failure. */
  readonly removeFolder: (folder: string) => Effect.Effect<void>
}>() {}
