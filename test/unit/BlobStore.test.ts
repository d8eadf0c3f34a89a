import { assert, describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import { Chunk, Effect, Exit, Layer, Option, Stream } from "effect"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as FileBlobStore from "../../adapters/blobs/FileBlobStore.js"
import * as MemoryBlobStore from "../../adapters/blobs/MemoryBlobStore.js"
import { BlobStore } from "../../core/shared/BlobStore.js"

/** The folders the file store syncs, in order: their handles are the ones opened read-only. */
const syncedFolders = vi.hoisted(() => [] as Array<string>)
vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>()
  const open: typeof fs.open = async (path, flags, mode) => {
    const handle = await fs.open(path, flags, mode)
    if (flags !== "r") return handle
    const sync = handle.sync.bind(handle)
    return Object.assign(handle, { sync: () => sync().then(() => void syncedFolders.push(String(path))) })
  }
  return { ...fs, open }
})

const root = mkdtempSync(join(tmpdir(), "blobs-"))
const chunks = [new TextEncoder().encode("hello, "), new TextEncoder().encode("world")]
const expectedSha = createHash("sha256").update("hello, world").digest("hex")

const read = (key: string) =>
  Effect.gen(function*() {
    const stream = yield* (yield* BlobStore).stream(key)
    assert(Option.isSome(stream))
    const all = yield* Stream.runCollect(stream.value)
    return Buffer.concat(Chunk.toArray(all)).toString()
  })

const stores: ReadonlyArray<readonly [string, Layer.Layer<BlobStore>]> = [
  ["memory", MemoryBlobStore.layer],
  ["file", FileBlobStore.layer(root)]
]

for (const [name, store] of stores) {
  describe(`${name} blob store`, () => {
    it.effect("streams a write, measuring size and sha256, and streams it back", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const stored = yield* blobs.putStream("media/a/one", Stream.fromIterable(chunks), 100)
        expect(stored).toEqual({ size: 12, sha256: expectedSha })
        expect(yield* read("media/a/one")).toBe("hello, world")
        yield* blobs.remove("media/a/one")
        expect(Option.isNone(yield* blobs.stream("media/a/one"))).toBe(true)
      }).pipe(Effect.provide(store)))

    it.effect("stops past the limit with TooLarge and keeps nothing", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const exit = yield* Effect.exit(blobs.putStream("media/a/big", Stream.fromIterable(chunks), 10))
        assert(Exit.isFailure(exit))
        expect(JSON.stringify(exit.cause)).toContain("TooLarge")
        expect(Option.isNone(yield* blobs.stream("media/a/big"))).toBe(true)
        // A failing source leaves nothing either.
        const failing = Stream.concat(Stream.fromIterable(chunks), Stream.fail("network dropped"))
        const broken = yield* Effect.exit(blobs.putStream("media/a/broken", failing, 100))
        assert(Exit.isFailure(broken))
        expect(Option.isNone(yield* blobs.stream("media/a/broken"))).toBe(true)
        if (name === "file") expect(readdirSync(join(root, "media", "a"))).toEqual([])
      }).pipe(Effect.provide(store)))

    it.effect("removes a folder's blobs, and only its: not those of a folder whose name it begins", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore
        const bytes = new TextEncoder().encode("x")
        const keys = ["media/f1/one", "media/f1/two", "media/f10/three", "exports/f1/export.json"]
        for (const key of keys) yield* blobs.put(key, bytes)
        yield* blobs.removeFolder("media/f1")
        const left = yield* Effect.forEach(keys, (key) => Effect.map(blobs.get(key), (b) => b !== undefined))
        expect(left).toEqual([false, false, true, true])
        if (name === "file") expect(readdirSync(join(root, "media"))).not.toContain("f1")
        // A folder that holds nothing, or is gone already.
        yield* blobs.removeFolder("media/f1")
        yield* blobs.removeFolder("media/never")
        expect(yield* blobs.get("media/f10/three")).toEqual(bytes)
      }).pipe(Effect.provide(store)))
  })
}

it.effect("the file blob store refuses to remove a folder outside it, or itself", () =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore
    yield* blobs.put("media/kept/one", new TextEncoder().encode("x"))
    for (const folder of ["..", "media/../..", ""]) expect(Exit.isFailure(yield* Effect.exit(blobs.removeFolder(folder)))).toBe(true)
    expect(yield* blobs.get("media/kept/one")).toBeDefined()
  }).pipe(Effect.provide(FileBlobStore.layer(root))))

it.effect("the file blob store completes a streamed write whose folder is removed meanwhile", () =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore
    yield* blobs.put("media/gone/first", new TextEncoder().encode("x"))
    // The folder goes while the bytes stream, as when the organization is deleted during an upload.
    const content = Stream.concat(
      Stream.fromIterable(chunks.slice(0, 1)),
      Stream.fromEffect(Effect.as(blobs.removeFolder("media/gone"), chunks[1]!))
    )
    const stored = yield* blobs.putStream("media/gone/second", content, 100)
    expect(stored).toEqual({ size: 12, sha256: expectedSha })
    expect(yield* read("media/gone/second")).toBe("hello, world")
    expect(yield* blobs.get("media/gone/first")).toBeUndefined()
    yield* blobs.remove("media/gone/second")
    expect(readdirSync(join(root, "media", "gone"))).toEqual([])
  }).pipe(Effect.provide(FileBlobStore.layer(root))))

it.effect("the file blob store removes, when made, the staged files a crash left behind, and only stale ones", () =>
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "blobs-"))
    const staging = join(dir, ".partial")
    mkdirSync(staging)
    // A process killed while it streamed an upload leaves its staged file; another process may
    // still be writing a fresh one.
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000)
    writeFileSync(join(staging, "dead.part"), "half a file")
    utimesSync(join(staging, "dead.part"), hourAgo, hourAgo)
    writeFileSync(join(staging, "live.part"), "under way")
    yield* Effect.provide(Effect.void, FileBlobStore.layer(dir))
    expect(readdirSync(staging)).toEqual(["live.part"])
  }))

const durable = mkdtempSync(join(tmpdir(), "blobs-"))

it.effect("the file blob store syncs every folder from a file's up to its root, those it made for the file too", () =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore
    // The first upload of an organization makes media/<organization>: a power cut once the write
    // has returned must take neither that folder nor the file in it.
    syncedFolders.length = 0
    yield* blobs.putStream("media/o1/one", Stream.fromIterable(chunks), 100)
    expect(syncedFolders).toEqual([join(durable, "media", "o1"), join(durable, "media"), durable])
    syncedFolders.length = 0
    yield* blobs.put("exports/o1/export.json", new TextEncoder().encode("{}"))
    expect(syncedFolders).toEqual([join(durable, "exports", "o1"), join(durable, "exports"), durable])
  }).pipe(Effect.provide(FileBlobStore.layer(durable))))
