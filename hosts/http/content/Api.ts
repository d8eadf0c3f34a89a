import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { ContentPage, ContentPageList, ContentPageStatus, CreateContentPage, UpdateContentPage } from "../../../core/content/ContentPage.js"
import { NonEmptyString, strict, Uuid } from "../../../core/shared/Fields.js"
import { pageParams } from "../Paging.js"
import { IdPath } from "../tenancy/Api.js"
import { ContentPagesAuth } from "./Auth.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const ListContentPagesQuery = Schema.Struct({
  status: Schema.optional(ContentPageStatus),
  slug: Schema.optional(NonEmptyString),
  familyId: Schema.optional(Uuid),
  ...pageParams(200)
}).annotations(strict)

export class ContentPagesApi extends HttpApiGroup.make("contentPages")
  .add(HttpApiEndpoint.get("list", "/v1/content-pages").setUrlParams(ListContentPagesQuery).addSuccess(ContentPageList))
  .add(HttpApiEndpoint.post("create", "/v1/content-pages").setPayload(everyIssue(CreateContentPage)).addSuccess(ContentPage, { status: 201 }).addError(ConflictWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/content-pages/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(ContentPage).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/content-pages/:id").setPath(IdPath).setPayload(everyIssue(UpdateContentPage)).addSuccess(ContentPage).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/content-pages/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(ContentPagesAuth)
{}
