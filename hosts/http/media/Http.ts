import { HttpApiBuilder, HttpServerResponse, Multipart } from "@effect/platform"
import { NodeMultipart } from "@effect/platform-node"
import { Cause, Effect, Option, Schema, Stream } from "effect"
import { MAX_MEDIA_BYTES, type UploadPart } from "../../../core/media/Media.js"
import { MediaLibrary } from "../../../core/media/MediaLibrary.js"
import { TooLarge, ValidationFailed } from "../../../core/shared/Errors.js"
import { CatalogApi } from "../Api.js"
import { envelope } from "../Errors.js"
import { guardMultipartParser } from "./MultipartGuard.js"
import { boundaryOf, isFormDataType } from "./Utf8Filenames.js"
import { locatedAt } from "../Location.js"

const SizeLimit = Schema.Struct({ _tag: Schema.Literal("ReachedLimit"), limit: Schema.Literal("MaxPartSize", "MaxTotalSize") })
/** The parser's refusal of a part whose Content-Disposition names none (`form-data; filename="a.txt"`). */
const NoName = Schema.Struct({ _tag: Schema.Literal("InvalidDisposition") })
/** A form field whose bytes are not UTF-8 (`FieldNotUtf8`). */
const NotUtf8 = Schema.Struct({ _tag: Schema.Literal("FieldNotUtf8"), name: Schema.String })

guardMultipartParser()

const notMultipart = () => ValidationFailed.one([], "the body is not a valid multipart/form-data upload", "invalid_multipart")

/** The parser's own failures, in the API's terms. */
const uploadError = (error: Multipart.MultipartError): TooLarge | ValidationFailed => {
  // A file part's own stream reports the parser's size limit as an internal error: look at its cause.
  if (Schema.is(SizeLimit)(error.cause)) return new TooLarge({ message: `the file is larger than ${MAX_MEDIA_BYTES} bytes` })
  // As a part without a Content-Disposition at all, which reaches the upload with the empty name.
  if (Schema.is(NoName)(error.cause)) return ValidationFailed.one([], "every part needs a name: file, alt or position", "unrecognized_key")
  if (Schema.is(NotUtf8)(error.cause)) return ValidationFailed.one([error.cause.name], "must be UTF-8 text", "invalid_character")
  switch (error.reason) {
    case "FileTooLarge":
    case "BodyTooLarge":
      return new TooLarge({ message: `the file is larger than ${MAX_MEDIA_BYTES} bytes` })
    case "TooManyParts":
      return ValidationFailed.one([], "too many parts: send one file and the alt and position fields", "too_many_parts")
    case "FieldTooLarge":
      return ValidationFailed.one([], "a form field is too large", "field_too_large")
    default:
      return notMultipart()
  }
}

/**
 * The platform's multipart reader throws on some bodies it cannot read (an empty part followed
 * by a delimiter without its line break): that is a malformed upload, not our failure.
 */
const unreadablePart = <E>(cause: Cause.Cause<E>): Stream.Stream<never, E | ValidationFailed> =>
  Cause.isInterruptedOnly(cause) || Option.isSome(Cause.failureOption(cause))
    ? Stream.failCause(cause)
    : Stream.fail(notMultipart())

const ignore = () => {}

/** A `filename*` value (RFC 8187): `encodeURIComponent` leaves ' ( ) * bare, which the value may not hold. */
const filenameValue = (name: string): string =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const toUploadPart = (part: Multipart.Part): UploadPart<TooLarge | ValidationFailed> => {
  if (!Multipart.isFile(part)) return { _tag: "Field", key: part.key, value: part.value }
  // Once the blob store has refused a file, nothing listens to its stream, yet the parser goes
  // on reading the rest of the body and reports its limits on that stream: an error event
  // without a listener would end the process.
  NodeMultipart.fileToReadable(part).on("error", ignore)
  return { _tag: "File", key: part.key, filename: part.name, contentType: part.contentType, content: Stream.mapError(part.content, uploadError) }
}

export const MediaLive = HttpApiBuilder.group(CatalogApi, "media", (handlers) =>
  Effect.gen(function*() {
    const library = yield* MediaLibrary
    return handlers
      .handle("upload", ({ path, payload, request }) => {
        // The parser cannot even start on another body: answer before it is asked to.
        const type = (request.headers["content-type"] ?? "").toLowerCase()
        if (!isFormDataType(type)) {
          return Effect.succeed(HttpServerResponse.unsafeJson(
            envelope("FST_ERR_CTP_INVALID_MEDIA_TYPE", "uploads are multipart/form-data with one file part"),
            { status: 415 }
          ))
        }
        if (boundaryOf(type) === undefined) return Effect.fail(ValidationFailed.one([], "the multipart body has no boundary", "invalid_multipart"))
        return library.upload(path.id, payload.pipe(Stream.mapError(uploadError), Stream.catchAllCause(unreadablePart), Stream.map(toUploadPart)))
          .pipe(locatedAt((made) => `/v1/media/${made.id}`))
      })
      .handle("list", ({ path, urlParams: q }) => library.list(path.id, { limit: q.limit ?? 50, offset: q.offset ?? 0 }))
      .handle("update", ({ path, payload }) => library.update(path.id, path.mediaId, payload))
      .handle("detach", ({ path }) => library.detach(path.id, path.mediaId))
      .handle("get", ({ path }) => library.get(path.id))
      .handle("remove", ({ path }) => library.remove(path.id))
      .handle("content", ({ path }) =>
        Effect.map(library.content(path.id), ({ bytes, media }) =>
          HttpServerResponse.stream(bytes, {
            contentType: media.contentType,
            headers: {
              // Stated here: the platform leaves out a `contentLength` of 0, and an empty file went chunked.
              "content-length": String(media.size),
              // Uploaded bytes are served as they came: never let a browser run them in our origin.
              "x-content-type-options": "nosniff",
              "content-security-policy": "default-src 'none'; sandbox",
              "content-disposition": `inline; filename*=UTF-8''${filenameValue(media.filename)}` }
          })))
  }))
