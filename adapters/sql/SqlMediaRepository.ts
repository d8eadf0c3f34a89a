import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import { Media, type MediaRecord, mediaUrl } from "../../core/media/Media.js"
import { MediaRepository } from "../../core/media/MediaRepository.js"
import { positionAfter } from "../../core/shared/Fields.js"
import { IntColumn } from "./Columns.js"
import { heldIds } from "./PresentValues.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  productId: Schema.NullOr(Schema.String),
  blobKey: Schema.String,
  filename: Schema.String,
  contentType: Schema.String,
  size: IntColumn,
  sha256: Schema.String,
  alt: Schema.NullOr(Schema.String),
  position: IntColumn,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const decodeNext = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.NullOr(IntColumn) })))
const decodeFirst = Schema.decodeUnknown(Schema.Array(Schema.Struct({ productId: Schema.String, id: Schema.String })))
const decodeKeys = Schema.decodeUnknown(Schema.Array(Schema.Struct({ productId: Schema.String, blobKey: Schema.String })))

const toRecord = ({ blobKey, ...row }: typeof Row.Type): MediaRecord => ({
  media: new Media({ ...row, url: mediaUrl(row.id) }, true),
  blobKey
})

const ORDER = "position, created_at, id"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = (rows: ReadonlyArray<unknown>) => decodeRows(rows).pipe(Effect.orDie, Effect.map((r) => r.map(toRecord)))

  return MediaRepository.of({
    insert: ({ blobKey, media }) => {
      const { url: _url, ...columns } = media
      return sql`insert into media ${sql.insert({ ...columns, blobKey })}`.pipe(Effect.asVoid, Effect.orDie)
    },
    findById: (organizationId, id) =>
      sql`select * from media where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    existing: (organizationId, ids) => heldIds(sql, "media", organizationId, ids),
    ofProduct: (organizationId, productId, page) =>
      sql`select * from media where organization_id = ${organizationId} and product_id = ${productId}
          order by ${sql.literal(ORDER)} limit ${page.limit + 1} offset ${page.offset}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map((rows) => ({ media: rows.slice(0, page.limit), hasMore: rows.length > page.limit }))
      ),
    nextPosition: (organizationId, productId) =>
      sql`select max(position) as n from media where organization_id = ${organizationId} and product_id = ${productId}`.pipe(
        Effect.flatMap(decodeNext),
        Effect.map((rows) => {
          const last = rows[0]?.n
          return last === null || last === undefined ? 0 : positionAfter(last)
        }),
        Effect.orDie
      ),
    firstOf: (organizationId, productIds) =>
      productIds.length === 0 ? Effect.succeed(new Map()) : sql`select product_id, id from (
            select product_id, id, row_number() over (partition by product_id order by ${sql.literal(ORDER)}) as rank
            from media where organization_id = ${organizationId} and ${sql.in("product_id", productIds)}
          ) ranked where rank = 1`.pipe(
        Effect.flatMap(decodeFirst),
        Effect.map((rows) => new Map(rows.map((r) => [r.productId, r.id]))),
        Effect.orDie
      ),
    blobKeysOf: (organizationId, productIds) =>
      productIds.length === 0 ? Effect.succeed([]) : sql`select product_id, blob_key from media
          where organization_id = ${organizationId} and ${sql.in("product_id", productIds)}`.pipe(
        Effect.flatMap(decodeKeys),
        Effect.orDie
      ),
    update: ({ media: m }) =>
      sql`update media set product_id = ${m.productId}, alt = ${m.alt}, position = ${m.position}, updated_at = ${m.updatedAt}
          where organization_id = ${m.organizationId} and id = ${m.id}`.pipe(Effect.asVoid, Effect.orDie),
    remove: (organizationId, id) =>
      sql`delete from media where organization_id = ${organizationId} and id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(MediaRepository, make)
