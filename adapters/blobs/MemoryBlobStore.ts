import { Effect, Layer } from "effect"
import { BlobStore } from "../../core/shared/BlobStore.js"

/** Blobs in a map: for embedding and tests. */
export const layer = Layer.sync(BlobStore, () => {
  const blobs = new Map<string, Uint8Array>()
  return BlobStore.of({
    put: (key, bytes) => Effect.sync(() => void blobs.set(key, bytes)),
    get: (key) => Effect.sync(() => blobs.get(key)),
    remove: (key) => Effect.sync(() => void blobs.delete(key))
  })
})
