import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Array, Effect, Layer, Schema } from "effect"
import { Category } from "../../core/catalog/Category.js"
import { CategoryRepository } from "../../core/catalog/CategoryRepository.js"
import { caseKey } from "../../core/catalog/Text.js"
import { Conflict } from "../../core/shared/Errors.js"
import { decodeCount, IntColumn, StoredValuesColumn, toJson } from "./Columns.js"
import { categoryTreeSize } from "./CategoryTreeSize.js"
import { nameOrSlugHolds } from "./NameSearch.js"
import { heldIds, holdForDelete, holdProducts, presentValues } from "./PresentValues.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  parentId: Schema.NullOr(Schema.String),
  name: Schema.String,
  slug: Schema.String,
  position: IntColumn,
  attributes: StoredValuesColumn,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const IdRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))

const columns = (c: Category) => ({
  id: c.id,
  organizationId: c.organizationId,
  parentId: c.parentId,
  name: c.name,
  nameKey: caseKey(c.name),
  slug: c.slug,
  position: c.position,
  attributes: toJson(c.attributes),
  createdBy: c.createdBy,
  updatedBy: c.updatedBy,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt
})

const conflict = (c: Category) => (e: SqlError) =>
  isUniqueViolation(e) ? Effect.fail(new Conflict({ message: `category slug ${c.slug} is taken` })) : Effect.die(e)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // By name ignoring case, as brands are listed and names are compared; in code point order on
  // Postgres too, whatever the database's locale (SQLite compares text so already).
  const byNameKey = sql.literal(sql.onDialectOrElse({ pg: () => `name_key collate "C"`, orElse: () => "name_key" }))
  const all = storedRecords(Row, Category)

  return CategoryRepository.of({
    insert: (c) => sql`insert into categories ${sql.insert(columns(c))}`.pipe(Effect.asVoid, Effect.catchTag("SqlError", conflict(c))),
    update: (c) => {
      const { id: _, organizationId: __, createdAt: ___, createdBy: ____, ...set } = columns(c)
      return sql`update categories set ${sql.update(set)} where organization_id = ${c.organizationId} and id = ${c.id}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", conflict(c))
      )
    },
    holdForDeletion: (organizationId, id) =>
      Effect.zipRight(
        holdForDelete(sql, "categories", organizationId, id),
        holdProducts(sql, organizationId, sql`id in (select product_id from product_categories where category_id = ${id})`)
      ),
    delete: (organizationId, id, at) =>
      Effect.gen(function*() {
        const products = yield* sql`select count(*) as n from product_categories
                                    where organization_id = ${organizationId} and category_id = ${id}`.pipe(Effect.flatMap(decodeCount))
        yield* sql`update products set updated_at = ${at}
                   where organization_id = ${organizationId}
                     and id in (select product_id from product_categories where category_id = ${id})`
        yield* sql`delete from categories where organization_id = ${organizationId} and id = ${id}`
        return products
      }).pipe(Effect.orDie),
    findById: (organizationId, id) =>
      sql`select * from categories where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    list: (organizationId, query) =>
      sql`select * from categories where ${
        sql.and([
          sql`organization_id = ${organizationId}`,
          ...(query.parentId !== undefined ? [sql`parent_id = ${query.parentId}`] : []),
          ...(query.q !== undefined ? [nameOrSlugHolds(sql, query.q)] : [])
        ])
      } order by position, ${byNameKey}, id`.pipe(Effect.orDie, Effect.flatMap(all)),
    hasChildren: (organizationId, id) =>
      sql`select id from categories where organization_id = ${organizationId} and parent_id = ${id} limit 1`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    lockTree: (organizationId) =>
      sql.onDialectOrElse({
        pg: () => Effect.orDie(Effect.asVoid(sql`select pg_advisory_xact_lock(hashtextextended(${`categories:${organizationId}`}, 0))`)),
        // SQLite writes one transaction at a time: the tree is held already.
        orElse: () => Effect.void
      }),
    ancestors: (organizationId, id) =>
      sql`with recursive up(id, parent_id, depth) as (
            select id, parent_id, 0 from categories where organization_id = ${organizationId} and id = ${id}
            union all
            select c.id, c.parent_id, up.depth + 1 from categories c join up on c.id = up.parent_id
            where c.organization_id = ${organizationId} and up.depth < (${categoryTreeSize(sql, organizationId)})
          )
          select id from up where depth > 0 order by depth`.pipe(
        Effect.flatMap(IdRows),
        Effect.map((rows) => rows.map((r) => r.id)),
        Effect.orDie
      ),
    existing: (organizationId, ids) => heldIds(sql, "categories", organizationId, ids),
    slugsTaken: (organizationId, slugs) => presentValues(sql, "categories", "slug", organizationId, slugs)
  })
})

export const layer = Layer.effect(CategoryRepository, make)
