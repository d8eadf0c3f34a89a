import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Array, Effect, Layer, Schema } from "effect"
import { Brand } from "../../core/catalog/Brand.js"
import { BrandRepository } from "../../core/catalog/BrandRepository.js"
import { caseKey } from "../../core/catalog/Text.js"
import { Conflict } from "../../core/shared/Errors.js"
import { BooleanColumn, decodeCount, StoredValuesColumn, toJson } from "./Columns.js"
import { nameOrSlugHolds } from "./NameSearch.js"
import { heldIds, holdForDelete, holdProducts, presentValues } from "./PresentValues.js"
import { isUniqueViolation, isUniqueViolationOn } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  attributes: StoredValuesColumn,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const KeyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ nameKey: Schema.String })))
const IdKeyRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, nameKey: Schema.String })))
const ClashRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ byName: BooleanColumn })))

const columns = (b: Brand, nameKey = caseKey(b.name)) => ({
  id: b.id,
  organizationId: b.organizationId,
  name: b.name,
  nameKey,
  slug: b.slug,
  attributes: toJson(b.attributes),
  createdBy: b.createdBy,
  updatedBy: b.updatedBy,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt
})

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = storedRecords(Row, Brand)

  // Asked before writing: after a refused write Postgres accepts no statement until rollback.
  const clash = (b: Brand, nameKey = caseKey(b.name)) =>
    sql`select name_key = ${nameKey} as by_name from brands
        where organization_id = ${b.organizationId} and id <> ${b.id}
          and (name_key = ${nameKey} or slug = ${b.slug}) limit 1`.pipe(
      Effect.flatMap(ClashRows),
      Effect.orDie,
      Effect.flatMap((rows) =>
        rows[0] === undefined ? Effect.void : Effect.fail(
          new Conflict({ message: rows[0].byName ? `brand name ${b.name} is taken` : `brand slug ${b.slug} is taken` })
        )
      )
    )
  // A write committed after `clash` looked: the index it broke names which of the two is taken.
  const conflict = (b: Brand) => (e: SqlError) =>
    !isUniqueViolation(e) ? Effect.die(e) : Effect.fail(new Conflict({
      message: isUniqueViolationOn(e, "brands", ["organization_id", "slug"]) ? `brand slug ${b.slug} is taken` : `brand name ${b.name} is taken`
    }))

  return BrandRepository.of({
    insert: (b) =>
      clash(b).pipe(
        Effect.zipRight(sql`insert into brands ${sql.insert(columns(b))}`),
        Effect.asVoid,
        Effect.catchTag("SqlError", conflict(b))
      ),
    update: (b) =>
      Effect.gen(function*() {
        // A brand the migrations keyed by its id (its name became one with an older brand's)
        // keeps that key while its name keys the same and the older brand is there, so it can
        // still be written; once that one is gone it takes the plain key again.
        const key = caseKey(b.name)
        const ownKey = `${key} ${b.id}`
        const both = yield* sql`select id from brands where organization_id = ${b.organizationId}
          and ((id = ${b.id} and name_key = ${ownKey}) or (id <> ${b.id} and name_key = ${key}))`.pipe(Effect.orDie)
        const nameKey = both.length === 2 ? ownKey : key
        const { id: _, organizationId: __, createdAt: ___, createdBy: ____, ...set } = columns(b, nameKey)
        yield* clash(b, nameKey)
        yield* sql`update brands set ${sql.update(set)} where organization_id = ${b.organizationId} and id = ${b.id}`
      }).pipe(Effect.catchTag("SqlError", conflict(b))),
    holdForDeletion: (organizationId, id) =>
      Effect.zipRight(holdForDelete(sql, "brands", organizationId, id), holdProducts(sql, organizationId, sql`brand_id = ${id}`)),
    delete: (organizationId, id, at) =>
      Effect.gen(function*() {
        const products = yield* sql`select count(*) as n from products where organization_id = ${organizationId} and brand_id = ${id}`.pipe(
          Effect.flatMap(decodeCount)
        )
        yield* sql`update products set brand_id = null, updated_at = ${at} where organization_id = ${organizationId} and brand_id = ${id}`
        yield* sql`update product_categories set brand_id = null where organization_id = ${organizationId} and brand_id = ${id}`
        const gone = yield* sql`delete from brands where organization_id = ${organizationId} and id = ${id} returning name_key`.pipe(
          Effect.flatMap(KeyRows)
        )
        // A brand the migrations keyed by its id because this one had its name takes the plain
        // key now (the oldest, should there be several), so no new brand can share its name.
        for (const { nameKey } of gone) {
          const like = `${nameKey.replace(/[\\%_]/g, (c) => `\\${c}`)} %`
          const keyedById = (yield* sql`select id, name_key from brands where organization_id = ${organizationId}
            and name_key like ${like} escape '\\' order by created_at, id`.pipe(Effect.flatMap(IdKeyRows)))
            .find((b) => b.nameKey === `${nameKey} ${b.id}`)
          if (keyedById !== undefined) {
            yield* sql`update brands set name_key = ${nameKey} where organization_id = ${organizationId} and id = ${keyedById.id}`
          }
        }
        return products
      }).pipe(Effect.orDie),
    findById: (organizationId, id) =>
      sql`select * from brands where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    list: (organizationId, query) =>
      sql`select * from brands where ${
        sql.and([sql`organization_id = ${organizationId}`, ...(query.q !== undefined ? [nameOrSlugHolds(sql, query.q)] : [])])
      } order by name_key, id`.pipe(Effect.orDie, Effect.flatMap(all)),
    existing: (organizationId, ids) => heldIds(sql, "brands", organizationId, ids),
    slugsTaken: (organizationId, slugs) => presentValues(sql, "brands", "slug", organizationId, slugs)
  })
})

export const layer = Layer.effect(BrandRepository, make)
