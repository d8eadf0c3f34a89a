import { Effect, Layer, Option, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises"
import { dirname, join, normalize, sep } from "node:path"
import { BlobStore } from "../../core/shared/BlobStore.js"
import { TooLarge } from "../../core/shared/Errors.js"

const missing = (e: NodeJS.ErrnoException) => e.code === "ENOENT"

/** Blobs as files under `root`, each written to disk and fsynced before a write returns. */
export const layer = (root: string) => {
  const pathOf = (key: string) => {
    const path = normalize(join(root, key))
    if (!path.startsWith(normalize(root) + sep)) throw new Error(`blob key escapes the store: ${key}`)
    return path
  }

  /** Where streamed writes are kept until complete: no key's folder, so no folder removal takes them. */
  const staging = join(root, ".partial")

  /** Renames into the key's folder, made (again) if it is missing, as a removal can leave it. */
  const moveInto = async (from: string, to: string) => {
    for (let attempt = 1; ; attempt++) {
      await mkdir(dirname(to), { recursive: true })
      try {
        return await rename(from, to)
      } catch (e) {
        if (!missing(e as NodeJS.ErrnoException) || attempt >= 3) throw e
      }
    }
  }

  /** The directory entry of a renamed file is durable only once its directory is synced. */
  const syncDirectory = (dir: string) =>
    Effect.promise(async () => {
      const handle = await open(dir, "r")
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
    })

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
      // Written to a temporary name and renamed when complete, so a reader never sees half a file.
      // The temporary file waits outside the key's folder, which may be removed while the bytes
      // stream (an organization deleted meanwhile): the write still completes, and the caller
      // decides what the blob is worth.
      putStream: (key, content, maxBytes) =>
        Effect.gen(function*() {
          const path = yield* Effect.sync(() => pathOf(key))
          const partial = join(staging, `${randomBytes(9).toString("hex")}.part`)
          yield* Effect.promise(() => mkdir(staging, { recursive: true }))
          return yield* Effect.gen(function*() {
            const stored = yield* Effect.acquireUseRelease(
              Effect.promise(() => open(partial, "w")),
              (file) =>
                Effect.gen(function*() {
                  const hash = createHash("sha256")
                  let size = 0
                  yield* Stream.runForEach(content, (chunk) => {
                    size += chunk.length
                    if (size > maxBytes) return Effect.fail(new TooLarge({ message: `the file is larger than ${maxBytes} bytes` }))
                    hash.update(chunk)
                    return Effect.promise(() => file.write(chunk))
                  })
                  yield* Effect.promise(() => file.sync())
                  return { size, sha256: hash.digest("hex") }
                }),
              (file) => Effect.promise(() => file.close())
            )
            yield* Effect.promise(() => moveInto(partial, path))
            yield* syncDirectory(dirname(path))
            return stored
          }).pipe(Effect.onExit((exit) => exit._tag === "Failure" ? Effect.promise(() => rm(partial, { force: true })) : Effect.void))
        }),
      get: (key) =>
        Effect.promise(() =>
          readFile(pathOf(key)).then(
            (b) => new Uint8Array(b),
            (e: NodeJS.ErrnoException) => (missing(e) ? undefined : Promise.reject(e))
          )
        ),
      stream: (key) =>
        Effect.promise(() => stat(pathOf(key)).then(() => true, (e: NodeJS.ErrnoException) => (missing(e) ? false : Promise.reject(e)))).pipe(
          Effect.map((exists) =>
            exists
              ? Option.some(
                // Opened when consumed, so a stream never read holds no file.
                Stream.suspend(() => Stream.fromAsyncIterable<Buffer, unknown>(createReadStream(pathOf(key)), (e) => e)).pipe(
                  Stream.map((chunk) => new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)),
                  Stream.orDie
                )
              )
              : Option.none()
          )
        ),
      remove: (key) => Effect.promise(() => rm(pathOf(key), { force: true })),
      removeFolder: (folder) => Effect.promise(() => rm(pathOf(folder), { recursive: true, force: true }))
    })
  )
}
