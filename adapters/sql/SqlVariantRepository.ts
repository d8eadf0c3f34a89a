import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import { Conflict } from "../../core/shared/Errors.js"
import { Variant, VariantStatus } from "../../core/variants/Variant.js"
import { VariantRepository, type VariantUpdate } from "../../core/variants/VariantRepository.js"
import { axisDigest } from "./AxisDigest.js"
import { IntColumn, StoredValuesColumn, toJson } from "./Columns.js"
import { isUniqueViolation, isUniqueViolationOn } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  productId: Schema.String,
  sku: Schema.String,
  name: Schema.String,
  status: VariantStatus,
  attributes: StoredValuesColumn,
  position: IntColumn,
  createdAt: Schema.String,
  updatedAt: Schema.String
})

const COLUMNS = "id, organization_id, product_id, sku, name, status, attributes, position, created_at, updated_at"

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = storedRecords(Row, Variant)
  // The use case checks both first; this answers a concurrent write that got there in between.
  const conflict = (w: VariantUpdate) => (e: Parameters<typeof isUniqueViolation>[0]) => {
    if (!isUniqueViolation(e)) return Effect.die(e)
    return Effect.fail(new Conflict({
      message: isUniqueViolationOn(e, "variants", ["product_id", "axis_key"])
        ? `another variant of product ${w.variant.productId} has the same variant axis values`
        : isUniqueViolationOn(e, "variants", ["organization_id", "sku"])
        ? `sku ${w.variant.sku} is taken`
        : `sku ${w.variant.sku} or this variant axis combination is taken`
    }))
  }
  const ofProduct = (organizationId: string, productId: string) =>
    sql`select ${sql.literal(COLUMNS)} from variants where organization_id = ${organizationId} and product_id = ${productId}
        order by position, created_at, id`

  return VariantRepository.of({
    insert: (w) =>
      sql`insert into variants ${sql.insert({ ...w.variant, attributes: toJson(w.variant.attributes), axisKey: axisDigest(w.axisKey) })}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", conflict(w))
      ),
    update: (w) => {
      const v = w.variant
      const axisKey = w.axisKey === undefined ? sql`` : sql`axis_key = ${axisDigest(w.axisKey)},`
      return sql`update variants set sku = ${v.sku}, name = ${v.name}, status = ${v.status}, attributes = ${toJson(v.attributes)},
          ${axisKey} position = ${v.position}, updated_at = ${v.updatedAt}
          where organization_id = ${v.organizationId} and id = ${v.id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.catchTag("SqlError", conflict(w))
      )
    },
    remove: (organizationId, productId, id) =>
      sql`delete from variants where organization_id = ${organizationId} and product_id = ${productId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    find: (organizationId, productId, id) =>
      sql`select ${sql.literal(COLUMNS)} from variants
          where organization_id = ${organizationId} and product_id = ${productId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    ofProduct: (organizationId, productId) => ofProduct(organizationId, productId).pipe(Effect.orDie, Effect.flatMap(all)),
    page: (organizationId, productId, page) =>
      sql`${ofProduct(organizationId, productId)} limit ${page.limit + 1} offset ${page.offset}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map((rows) => ({ variants: rows.slice(0, page.limit), hasMore: rows.length > page.limit }))
      ),
    skuTaken: (organizationId, sku, exceptId) =>
      sql`select id from variants where organization_id = ${organizationId} and sku = ${sku}`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.some((r) => r["id"] !== exceptId))
      )
  })
})

export const layer = Layer.effect(VariantRepository, make)
