import { Effect, Layer } from "effect"
import { mkdir, open, readFile, rm } from "node:fs/promises"
import { dirname, join, normalize, sep } from "node:path"
import { BlobStore } from "../../core/shared/BlobStore.js"

/** Blobs as files under `root`, each written to disk and fsynced before `put` returns. */
export const layer = (root: string) => {
  const pathOf = (key: string) => {
    const path = normalize(join(root, key))
    if (!path.startsWith(normalize(root) + sep)) throw new Error(`blob key escapes the store: ${key}`)
    return path
  }
  return Layer.succeed(
    BlobStore,
    BlobStore.of({
      put: (key, bytes) =>
        Effect.promise(async () => {
          const path = pathOf(key)
          await mkdir(dirname(path), { recursive: true })
          const file = await open(path, "w")
          try {
            await file.writeFile(bytes)
            await file.sync()
          } finally {
            await file.close()
          }
        }),
      get: (key) =>
        Effect.promise(() =>
          readFile(pathOf(key)).then(
            (b) => new Uint8Array(b),
            (e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e))
          )
        ),
      remove: (key) => Effect.promise(() => rm(pathOf(key), { force: true }))
    })
  )
}
