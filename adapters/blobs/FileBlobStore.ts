import { Effect, Layer, Option, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createReadStream } from "node:fs"
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises"
import { dirname, join, normalize, sep } from "node:path"
import { BlobStore } from "../../core/shared/BlobStore.js"
import { TooLarge } from "../../core/shared/Errors.js"

const missing = (e: NodeJS.ErrnoException) => e.code === "ENOENT"

/**
 * A staged file untouched this long belongs to no upload still under way: the host receives a
 * whole request within 5 minutes (Node's `requestTimeout`), and a live upload writes as it reads.
 */
const STALE_PARTIAL_MS = 60 * 60 * 1000

/**
 * Removes the staged files a process killed while it uploaded left behind (a process that lives
 * removes its own). Only stale ones: another process sharing the folder may be writing the rest.
 */
const sweepStaging = async (staging: string) => {
  const names = await readdir(staging).catch((e: NodeJS.ErrnoException) => (missing(e) ? [] : Promise.reject(e)))
  const before = Date.now() - STALE_PARTIAL_MS
  for (const name of names) {
    if (!name.endsWith(".part")) continue
    const path = join(staging, name)
    // Gone meanwhile: another process swept it, or its upload completed.
    const info = await stat(path).catch((e: NodeJS.ErrnoException) => (missing(e) ? undefined : Promise.reject(e)))
    if (info !== undefined && info.isFile() && info.mtimeMs < before) await rm(path, { force: true })
  }
}

/**
 * Blobs as files under `root`, each written to disk and fsynced before a write returns. Made,
 * it removes the stale staged files of uploads cut short by a crash.
 */
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

  const syncDirectory = async (dir: string) => {
    const handle = await open(dir, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  }

  /**
   * A file's directory entry is durable only once its folder is synced, and a folder made for it
   * (`media/<organization>` at its first upload) only once the folder above is: each folder from
   * the file's up to the root, so a power cut after the write returns loses none of them.
   */
  const syncFolders = async (path: string) => {
    const top = normalize(root)
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      await syncDirectory(dir)
      if (dir === top || !dir.startsWith(top + sep)) return
    }
  }

  // A folder that cannot be swept is left as it is: the store works without the sweep.
  const sweep = Effect.tryPromise(() => sweepStaging(staging)).pipe(
    Effect.catchAll((e) => Effect.logWarning(`the stale staged uploads in ${staging} were not all removed`, e.error))
  )

  return Layer.effect(
    BlobStore,
    Effect.as(sweep, BlobStore.of({
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
          await syncFolders(path)
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
            yield* Effect.promise(() => syncFolders(path))
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
    }))
  )
}
