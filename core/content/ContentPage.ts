import { Schema } from "effect"
import { NonEmptyString, Slug, Timestamp, Uuid } from "../shared/Fields.js"

export const ContentPageStatus = Schema.Literal("draft", "active", "archived")
export type ContentPageStatus = typeof ContentPageStatus.Type

/** Attribute values as written: code -> entries, checked against the family by the use case. */
const ValuesInput = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** Attribute values as stored and answered: code -> entries `{locale, channel, value}`. */
export const StoredValues = Schema.Record({
  key: Schema.String,
  value: Schema.Array(Schema.Struct({ locale: Schema.NullOr(Schema.String), channel: Schema.NullOr(Schema.String), value: Schema.Unknown }))
})

/** An editorial page (about us, a buying guide) shaped by a content family; its slug is unique per organization. */
export class ContentPage extends Schema.Class<ContentPage>("ContentPage")({
  id: Uuid,
  organizationId: Uuid,
  familyId: Uuid,
  title: Schema.String,
  slug: Schema.String,
  status: ContentPageStatus,
  attributes: StoredValues,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CreateContentPage = Schema.Struct({
  familyId: Uuid,
  title: NonEmptyString,
  slug: Schema.optional(Slug),
  status: Schema.optional(ContentPageStatus),
  attributes: Schema.optional(ValuesInput)
})
export type CreateContentPage = typeof CreateContentPage.Type

export const UpdateContentPage = Schema.Struct({
  familyId: Schema.optional(Uuid),
  title: Schema.optional(NonEmptyString),
  slug: Schema.optional(Slug),
  status: Schema.optional(ContentPageStatus),
  attributes: Schema.optional(ValuesInput)
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
