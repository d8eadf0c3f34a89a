import { Effect, Layer, Option, Ref, Stream } from "effect"
import { createHash } from "node:crypto"
import { BlobStore } from "../../core/shared/BlobStore.js"
import { TooLarge } from "../../core/shared/Errors.js"

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => new Uint8Array(Buffer.concat(chunks))

/** Blobs in a map: for embedding and tests. */
export const layer = Layer.sync(BlobStore, () => {
  const blobs = new Map<string, Uint8Array>()
  return BlobStore.of({
    put: (key, bytes) => Effect.sync(() => void blobs.set(key, bytes)),
    putStream: (key, content, maxBytes) =>
      Effect.gen(function*() {
        const chunks = yield* Ref.make<ReadonlyArray<Uint8Array>>([])
        const size = yield* Ref.make(0)
        yield* Stream.runForEach(content, (chunk) =>
          Effect.flatMap(Ref.updateAndGet(size, (n) => n + chunk.length), (n) =>
            n > maxBytes
              ? Effect.fail(new TooLarge({ message: `the file is larger than ${maxBytes} bytes` }))
              : Ref.update(chunks, (all) => [...all, chunk])))
        const bytes = concat(yield* Ref.get(chunks))
        blobs.set(key, bytes)
        return { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }
      }),
    get: (key) => Effect.sync(() => blobs.get(key)),
    stream: (key) => Effect.sync(() => Option.map(Option.fromNullable(blobs.get(key)), (bytes) => Stream.make(bytes))),
    remove: (key) => Effect.sync(() => void blobs.delete(key)),
    removeFolder: (folder) =>
      Effect.sync(() => {
        for (const key of [...blobs.keys()]) if (key.startsWith(`${folder}/`)) blobs.delete(key)
      })
  })
})
