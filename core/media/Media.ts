import { Schema, type Stream } from "effect"
import { IntegerText, MAX_POSITION, maxCharacters, POSITION_FROM_ZERO, PositionFromZero, Timestamp, Uuid } from "../shared/Fields.js"

/** Uploads are refused past this many bytes: the specification's 100 MB, in bytes as the SI counts them. */
export const MAX_MEDIA_BYTES = 100_000_000

/** Where the bytes of a media record are served. */
export const mediaUrl = (id: string): string => `/v1/media/${id}/content`

/** The blob store folder of an organization's uploaded files, each under its media id. */
export const mediaFolder = (organizationId: string): string => `media/${organizationId}`

/**
 * An uploaded file. Attached to a product (with its `alt` and `position` there) until it is
 * detached; `productId` is null after that, until the media is deleted.
 */
export class Media extends Schema.Class<Media>("Media")({
  id: Uuid,
  organizationId: Uuid,
  productId: Schema.NullOr(Uuid),
  url: Schema.String,
  filename: Schema.String,
  contentType: Schema.String,
  size: Schema.Int,
  sha256: Schema.String,
  alt: Schema.NullOr(Schema.String),
  position: Schema.Int,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/**
 * A caveat of an upload that was kept: the file is stored, but not quite as it was sent. Shaped
 * like a validation issue, and like one it names the form part it is about.
 */
export const UploadWarning = Schema.Struct({
  path: Schema.Array(Schema.String),
  message: Schema.String,
  code: Schema.Literal("empty_file", "filename_changed")
}).annotations({ identifier: "UploadWarning" })
export type UploadWarning = typeof UploadWarning.Type

/**
 * The answer to an upload: the media record, plus its caveats when there are any. Without any
 * it is the record alone, as `GET /v1/media/{id}` answers it.
 */
export class UploadedMedia extends Media.extend<UploadedMedia>("UploadedMedia")({
  warnings: Schema.optionalWith(Schema.Array(UploadWarning), { exact: true })
}) {}

/** A media record as stored: the wire record plus where its bytes are. */
export interface MediaRecord {
  readonly media: Media
  readonly blobKey: string
}

// Multipart fields do not pass the host's JSON text check: U+0000 is refused here (Postgres cannot store it).
const Alt = Schema.String.pipe(
  maxCharacters(1000, "must be at most 1000 characters"),
  Schema.filter((s) => !s.includes("\u0000"), { message: () => "must not contain the character U+0000" })
)

export const UpdateMedia = Schema.Struct({
  alt: Schema.optional(Schema.NullOr(Alt)),
  position: Schema.optional(PositionFromZero)
})
export type UpdateMedia = typeof UpdateMedia.Type

/** The form fields an upload may carry besides `file`, as text. */
export const UploadFields = Schema.Struct({
  alt: Schema.optional(Alt),
  position: Schema.optional(
    IntegerText(POSITION_FROM_ZERO, `an integer from 0 to ${MAX_POSITION}; one past the product's last media when absent`).pipe(Schema.compose(PositionFromZero))
  )
})

/** One part of a multipart upload, as the host hands it over. */
export type UploadPart<E> =
  | { readonly _tag: "Field"; readonly key: string; readonly value: string }
  | {
    readonly _tag: "File"
    readonly key: string
    readonly filename: string
    readonly contentType: string
    readonly content: Stream.Stream<Uint8Array, E>
  }

export class MediaList extends Schema.Class<MediaList>("MediaList")({
  data: Schema.Array(Media),
  limit: Schema.Int,
  offset: Schema.Int,
  hasMore: Schema.Boolean
}) {}
