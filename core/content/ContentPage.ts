import { Schema } from "effect"
import { AttributeValuesField, StoredAttributeValues } from "../catalog/Category.js"
import { Name, Slug, Timestamp, Uuid } from "../shared/Fields.js"

export const ContentPageStatus = Schema.Literal("draft", "active", "archived")
export type ContentPageStatus = typeof ContentPageStatus.Type

/** An editorial page (about us, a buying guide) shaped by a content family; its slug is unique per organization. */
export class ContentPage extends Schema.Class<ContentPage>("ContentPage")({
  id: Uuid,
  organizationId: Uuid,
  familyId: Uuid,
  title: Schema.String,
  slug: Schema.String,
  status: ContentPageStatus,
  attributes: StoredAttributeValues,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateContentPage = Schema.Struct({
  familyId: Uuid,
  title: Name,
  slug: Schema.optional(Slug),
  status: Schema.optional(ContentPageStatus),
  attributes: Schema.optional(AttributeValuesField)
})
export type CreateContentPage = typeof CreateContentPage.Type

export const UpdateContentPage = Schema.Struct({
  familyId: Schema.optional(Uuid),
  title: Schema.optional(Name),
  slug: Schema.optional(Slug),
  status: Schema.optional(ContentPageStatus),
  attributes: Schema.optional(AttributeValuesField)
})
export type UpdateContentPage = typeof UpdateContentPage.Type

export class ContentPageList extends Schema.Class<ContentPageList>("ContentPageList")({
  data: Schema.Array(ContentPage),
  limit: Schema.Int,
  offset: Schema.Int,
  hasMore: Schema.Boolean
}) {}

/** What the repository lists by: at most one of each filter, a page of `limit` rows from `offset`. */
export interface ContentPageFilter {
  readonly status?: ContentPageStatus | undefined
  readonly slug?: string | undefined
  readonly familyId?: string | undefined
  readonly limit: number
  readonly offset: number
}
