import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import { ContentPage, type ContentPageFilter, ContentPageStatus } from "../../core/content/ContentPage.js"
import { ContentPageRepository } from "../../core/content/ContentPageRepository.js"
import { Conflict } from "../../core/shared/Errors.js"
import { StoredValuesColumn, toJson } from "./Columns.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  familyId: Schema.String,
  title: Schema.String,
  slug: Schema.String,
  status: ContentPageStatus,
  attributes: StoredValuesColumn,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const SlugRow = Schema.Struct({ slug: Schema.String })
const decodeSlugs = Schema.decodeUnknown(Schema.Array(SlugRow))

/**
 * A page of the organization's content pages, oldest first (ties by id), one row past the page
 * to tell whether more follow. Unfiltered, by status and by family, an index holds them in
 * that order (migrations 9 and 38); a slug is one page at most.
 */
export const contentPagesStatement = (sql: SqlClient.SqlClient, organizationId: string, filter: ContentPageFilter) => {
  const conditions = [
    sql`organization_id = ${organizationId}`,
    ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
    ...(filter.slug !== undefined ? [sql`slug = ${filter.slug}`] : []),
    ...(filter.familyId !== undefined ? [sql`family_id = ${filter.familyId}`] : [])
  ]
  return sql`select * from content_pages where ${sql.and(conditions)}
    order by created_at, id limit ${filter.limit + 1} offset ${filter.offset}`
}

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = storedRecords(Row, ContentPage)
  const slugConflict = (slug: string) => (e: Parameters<typeof isUniqueViolation>[0]) =>
    isUniqueViolation(e) ? Effect.fail(new Conflict({ message: `content page slug ${slug} is taken` })) : Effect.die(e)

  return ContentPageRepository.of({
    insert: (p) =>
      sql`insert into content_pages ${sql.insert({ ...p, attributes: toJson(p.attributes) })}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", slugConflict(p.slug))
      ),
    update: (p) =>
      sql`update content_pages set family_id = ${p.familyId}, title = ${p.title}, slug = ${p.slug}, status = ${p.status},
          attributes = ${toJson(p.attributes)}, updated_at = ${p.updatedAt}
          where organization_id = ${p.organizationId} and id = ${p.id}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", slugConflict(p.slug))
      ),
    remove: (organizationId, id) =>
      sql`delete from content_pages where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    findById: (organizationId, id) =>
      sql`select * from content_pages where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    slugsTaken: (organizationId, slugs) =>
      slugs.length === 0
        ? Effect.succeed(new Set<string>())
        : sql`select slug from content_pages where organization_id = ${organizationId} and ${sql.in("slug", slugs)}`.pipe(
          Effect.flatMap(decodeSlugs),
          Effect.map((rows) => new Set(rows.map((r) => r.slug))),
          Effect.orDie
        ),
    list: (organizationId, filter) =>
      Effect.gen(function*() {
        const rows = yield* contentPagesStatement(sql, organizationId, filter).pipe(Effect.orDie, Effect.flatMap(all))
        return { pages: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit }
      })
  })
})

export const layer = Layer.effect(ContentPageRepository, make)
