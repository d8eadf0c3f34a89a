import { Context, type Effect } from "effect"

/** Where media and tenant exports are kept. */
export class BlobStore extends Context.Tag("catalog/BlobStore")<BlobStore, {
  /** Stores the bytes under `key` and returns once they are durable. */
  readonly put: (key: string, bytes: Uint8Array) => Effect.Effect<void>
  readonly get: (key: string) => Effect.Effect<Uint8Array | undefined>
  readonly remove: (key: string) => Effect.Effect<void>
}>() {}
