import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { ContentPage, ContentPageFilter } from "./ContentPage.js"

/** Content pages. Callers run these inside `UnitOfWork.tenant`. */
export class ContentPageRepository extends Context.Tag("catalog/ContentPageRepository")<ContentPageRepository, {
  /** Fails with Conflict when the slug is taken in the organization. */
  readonly insert: (page: ContentPage) => Effect.Effect<void, Conflict>
  /** Rewrites every field but the id; fails with Conflict when the new slug is taken. */
  readonly update: (page: ContentPage) => Effect.Effect<void, Conflict>
  /** Answers whether a row was removed. */
  readonly remove: (organizationId: string, id: string) => Effect.Effect<boolean>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<ContentPage>>
  /** Which of `slugs` are taken in the organization. */
  readonly slugsTaken: (organizationId: string, slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** Oldest first (then by id): `filter.limit` rows from `filter.offset`, and whether more follow. */
  readonly list: (
    organizationId: string,
    filter: ContentPageFilter
  ) => Effect.Effect<{ readonly pages: ReadonlyArray<ContentPage>; readonly hasMore: boolean }>
}>() {}
