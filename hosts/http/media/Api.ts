import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Option, Schema } from "effect"
import { MAX_MEDIA_BYTES, Media, MediaList, UpdateMedia, UploadedMedia, UploadFields } from "../../../core/media/Media.js"
import { strict, Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { NotFoundWire, TooLargeWire } from "../Errors.js"
import { pageParams } from "../Paging.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const AttachedPath = Schema.Struct({ id: Uuid, mediaId: Uuid })
const MediaQuery = Schema.Struct(pageParams(200)).annotations(strict)

/** The upload form: one `file`, optional `alt` and `position`. Read as a stream, never buffered. */
const UploadForm = HttpApiSchema.MultipartStream(
  // The fields as the upload checks them, so that the document states their bounds.
  Schema.Struct({ file: Multipart.SingleFileSchema, ...UploadFields.fields }),
  // The parser counts a few bytes past the file's own; the blob store enforces the exact limit.
  // A part with a file name is a file whatever its type: the parser would read an
  // `application/json` file as a text field.
  { maxParts: Option.some(16), maxFileSize: Option.some(MAX_MEDIA_BYTES + 64 * 1024), fieldMimeTypes: [] }
)

/**
 * The bytes of a media file, with its stored content type: the handler answers them itself, so
 * this says only what the document lists, any type.
 */
const Content = HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "*/*" })

export class MediaApi extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/v1/products/:id/media").setPath(IdPath).setPayload(UploadForm)
      .addSuccess(UploadedMedia, { status: 201 }).addError(TooLargeWire)
  .addError(NotFoundWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("list", "/v1/products/:id/media").setPath(IdPath).setUrlParams(MediaQuery).addSuccess(MediaList).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/products/:id/media/:mediaId").setPath(AttachedPath).setPayload(everyIssue(UpdateMedia)).addSuccess(Media).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("detach", "/v1/products/:id/media/:mediaId").setPath(AttachedPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .add(HttpApiEndpoint.get("get", "/v1/media/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Media).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/media/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .add(HttpApiEndpoint.get("content", "/v1/media/:id/content").setPath(IdPath).addSuccess(Content).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
