import { Context, Effect, Either, Layer, Option, Schema, Stream } from "effect"
import { emit, EventLog } from "../events/EventLog.js"
import { ProductRepository } from "../products/ProductRepository.js"
import { requireProduct } from "../products/RequireProduct.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { BlobStore } from "../shared/BlobStore.js"
import { Crypto } from "../shared/Crypto.js"
import { NotFound, orNotFound, type TooLarge, ValidationFailed } from "../shared/Errors.js"
import { unstorableText } from "../shared/Fields.js"
import { validationFailedOf } from "../shared/ParseIssues.js"
import { shown } from "../shared/Preview.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import {
  MAX_MEDIA_BYTES,
  Media,
  mediaFolder,
  MediaList,
  type MediaRecord,
  mediaUrl,
  type UpdateMedia,
  UploadedMedia,
  UploadFields,
  type UploadPart,
  type UploadWarning
} from "./Media.js"
import { MediaRepository } from "./MediaRepository.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class MediaLibrary extends Context.Tag("catalog/MediaLibrary")<MediaLibrary, {
  /**
   * Streams the one `file` part to the blob store (never holding it in memory, never inside a
   * transaction), then records it on the product with the optional `alt` and `position`
   * fields. Nothing is kept when any step fails. The answer carries `warnings` only when the
   * file was kept other than as sent: empty, or under a changed file name.
   */
  readonly upload: <E>(
    productId: string,
    parts: Stream.Stream<UploadPart<E>, E>
  ) => Effect.Effect<UploadedMedia, E | NotFound | ValidationFailed | TooLarge, CurrentTenant>
  readonly list: (productId: string, page: { readonly limit: number; readonly offset: number }) => Effect.Effect<MediaList, NotFound, CurrentTenant>
  /** Changes the attachment's alt text or position. */
  readonly update: (productId: string, id: string, input: UpdateMedia) => Effect.Effect<Media, NotFound, CurrentTenant>
  /** Takes the media off the product; the media itself stays until deleted. */
  readonly detach: (productId: string, id: string) => Effect.Effect<void, NotFound, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Media, NotFound, CurrentTenant>
  /** Deletes the record and then its bytes. */
  readonly remove: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
  /** The record and its bytes as a stream. */
  readonly content: (id: string) => Effect.Effect<{ readonly media: Media; readonly bytes: Stream.Stream<Uint8Array> }, NotFound, CurrentTenant>
}>() {}

const FIELDS = new Set(["alt", "position"])

/** A file name as shown: no directories, no control characters, at most 255 characters. */
const cleanFilename = (name: string): string => {
  const base = name.split(/[\\/]/).pop() ?? ""
  // Characters, not UTF-16 units: a cut inside an emoji would leave half of it, which
  // Postgres refuses in the event's JSON.
  const clean = Array.from(base.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim()).slice(0, 255).join("")
  return clean.length > 0 ? clean : "file"
}

/** What a client should know about a kept file: each way it differs from what was sent. */
const uploadWarnings = (sentFilename: string, stored: Media): Array<UploadWarning> => {
  const warnings: Array<UploadWarning> = []
  if (stored.size === 0) warnings.push({ path: ["file"], message: "the file is empty (0 bytes)", code: "empty_file" })
  if (stored.filename !== sentFilename) {
    warnings.push({
      path: ["file"],
      message: `the file name is stored as ${JSON.stringify(stored.filename)}: without directories, control characters or white space around it, at most 255 characters`,
      code: "filename_changed"
    })
  }
  return warnings
}

export const makeMediaLibrary = Effect.gen(function*() {
  const repo = yield* MediaRepository
  const products = yield* ProductRepository
  const blobs = yield* BlobStore
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog

  const record = (name: string, media: Media, payload: Record<string, unknown>) =>
    emit({ name, entityType: "media", entityId: media.id, payload }).pipe(
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )
  const inTenant = tenantTransaction(uow)
  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("media", id))
  /** The media, only while it is attached to the product. */
  const findOn = (organizationId: string, productId: string, id: string) =>
    Effect.gen(function*() {
      yield* requireProduct(products, organizationId, productId)
      const found = yield* find(organizationId, id)
      return found.media.productId === productId ? found : yield* new NotFound({ entity: "media", id })
    })

  /**
   * A change to the media on the product holds the product first, as its deletion does: the
   * deletion otherwise read the product's media, then cascaded over a detachment that had
   * committed in between (and took the detached media's bytes), or took the media from under
   * a detachment that then answered as if it had kept it.
   */
  const holdOn = (productId: string, id: string) => Effect.zipRight(uow.lock("product", [productId]), uow.lock("media", [id]))

  const upload = <E>(productId: string, parts: Stream.Stream<UploadPart<E>, E>) =>
    Effect.gen(function*() {
      const { organizationId } = yield* CurrentTenant
      yield* uow.tenant(organizationId, requireProduct(products, organizationId, productId))
      const id = yield* crypto.uuid
      const blobKey = `${mediaFolder(organizationId)}/${id}`
      const received: {
        file?: { readonly filename: string; readonly contentType: string; readonly size: number; readonly sha256: string }
        sentFilename?: string
      } = {}
      const fields: Record<string, string> = {}
      const consume = Stream.runForEach(parts, (part): Effect.Effect<void, E | ValidationFailed | TooLarge> => {
        // A part without a name (no Content-Disposition, or one without `name`) has the empty key.
        if (part.key === "") return ValidationFailed.one([], "every part needs a name: file, alt or position", "unrecognized_key")
        if (part._tag === "Field") {
          // A part without a file name is read as text: `curl -F file=<photo.jpg` sends one.
          if (part.key === "file") return ValidationFailed.one(["file"], "file must be sent as a file: its Content-Disposition needs a filename", "invalid_type")
          if (!FIELDS.has(part.key)) return ValidationFailed.one([part.key], `unknown field ${shown(part.key)}`, "unrecognized_key")
          if (part.key in fields) return ValidationFailed.one([part.key], `${part.key} is sent twice`, "duplicate_field")
          // Form fields miss the host's check of JSON text: refused here as that check refuses them.
          const unstorable = unstorableText(part.value)
          if (unstorable !== undefined) return ValidationFailed.one([part.key], unstorable, "invalid_character")
          fields[part.key] = part.value
          return Effect.void
        }
        if (part.key !== "file") return ValidationFailed.one([part.key], "the file goes in the part named file", "unrecognized_key")
        if (received.file !== undefined) return ValidationFailed.one(["file"], "one file per request", "too_many_files")
        return Effect.map(blobs.putStream(blobKey, part.content, MAX_MEDIA_BYTES), (stored) => {
          received.file = { filename: cleanFilename(part.filename), contentType: part.contentType || "application/octet-stream", ...stored }
          received.sentFilename = part.filename
        })
      })
      // Only the reading of the body can be interrupted (a client closing its connection). The
      // record's transaction runs to its end: interrupted while it committed, the upload went on
      // to remove the bytes of the record it had just kept.
      return yield* Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        yield* restore(consume)
        const uploaded = received.file
        if (uploaded === undefined) return yield* ValidationFailed.one(["file"], "a file part named file is required", "required")
        const decoded = Schema.decodeUnknownEither(UploadFields)(fields)
        if (Either.isLeft(decoded)) return yield* validationFailedOf(decoded.left)
        const options = decoded.right
        return yield* uow.tenant(
          organizationId,
          Effect.gen(function*() {
            // Uploads to one product wait for each other, so each default position is one past the last.
            yield* uow.lock("product", [productId])
            yield* requireProduct(products, organizationId, productId)
            const at = yield* now
            const media = new Media({
              id,
              organizationId,
              productId,
              url: mediaUrl(id),
              ...uploaded,
              alt: options.alt ?? null,
              position: options.position ?? (yield* repo.nextPosition(organizationId, productId)),
              createdAt: at,
              updatedAt: at
            }, true)
            yield* repo.insert({ media, blobKey })
            yield* record("media.attached", media, { productId, filename: media.filename, contentType: media.contentType, size: media.size })
            const warnings = uploadWarnings(received.sentFilename ?? uploaded.filename, media)
            return new UploadedMedia(warnings.length > 0 ? { ...media, warnings } : { ...media }, true)
          })
        )
      }).pipe(Effect.onError(() => blobs.remove(blobKey))))
    })

  const update = (productId: string, id: string, input: UpdateMedia) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdOn(productId, id)
        const found = yield* findOn(organizationId, productId, id)
        const before = found.media
        const after = new Media({
          ...before,
          alt: input.alt === undefined ? before.alt : input.alt,
          position: input.position ?? before.position,
          updatedAt: yield* now
        }, true)
        const changed = (["alt", "position"] as const).filter((k) => after[k] !== before[k])
        yield* record("media.association_updated", changed.length === 0 ? before : after, { productId, changed_fields: changed })
        if (changed.length === 0) return before
        yield* repo.update({ ...found, media: after })
        return after
      })
    )

  const detach = (productId: string, id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdOn(productId, id)
        const found = yield* findOn(organizationId, productId, id)
        const detached = new Media({ ...found.media, productId: null, updatedAt: yield* now }, true)
        yield* repo.update({ ...found, media: detached })
        yield* record("media.detached", detached, { productId })
      })
    )

  const remove = (id: string) =>
    Effect.gen(function*() {
      const removed: MediaRecord = yield* inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("media", [id])
          const found = yield* find(organizationId, id)
          yield* repo.remove(organizationId, id)
          yield* record("media.deleted", found.media, { productId: found.media.productId })
          return found
        })
      )
      // After the commit: bytes are never removed from under a record that still exists.
      yield* blobs.remove(removed.blobKey)
      // Run to the end: interrupted during the commit (a client closing its connection), the
      // deletion was acted on after it and the bytes were kept without their record.
    }).pipe(Effect.uninterruptible)

  const content = (id: string) =>
    Effect.gen(function*() {
      const found = yield* inTenant((organizationId) => find(organizationId, id))
      const bytes = yield* blobs.stream(found.blobKey)
      if (Option.isNone(bytes)) return yield* new NotFound({ entity: "media content", id })
      return { media: found.media, bytes: bytes.value }
    })

  return withRecordIds(MediaLibrary.of({
    upload,
    list: (productId, page) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* requireProduct(products, organizationId, productId)
          const { hasMore, media } = yield* repo.ofProduct(organizationId, productId, page)
          return new MediaList({ data: media.map((m) => m.media), limit: page.limit, offset: page.offset, hasMore }, true)
        })
      ),
    update,
    detach,
    get: (id) => inTenant((organizationId) => Effect.map(find(organizationId, id), (r) => r.media)),
    remove,
    content
  }), {
    upload: ["product"],
    list: ["product"],
    update: ["product", "media"],
    detach: ["product", "media"],
    get: ["media"],
    remove: ["media"],
    content: ["media"]
  })
})

export const MediaLibraryLive = Layer.effect(MediaLibrary, makeMediaLibrary)
