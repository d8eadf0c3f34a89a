import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AttributeType } from "../../../core/schema/AttributeValues.js"
import { type Axis, axisKey } from "../../../core/variants/VariantAxes.js"
import { axisDigest } from "../AxisDigest.js"
import { StoredValuesColumn } from "../Columns.js"

const Axes = Schema.Array(Schema.Struct({ familyId: Schema.String, attributeId: Schema.String, code: Schema.String, type: AttributeType }))
const Variants = Schema.Array(Schema.Struct({
  id: Schema.String,
  productId: Schema.String,
  familyId: Schema.String,
  createdAt: Schema.String,
  attributes: StoredValuesColumn
}))

const BATCH = 500

/**
 * Writes every variant's axis key as `axisKey` makes it today, from the axes its product's family
 * has now, oldest variant first. Keys are cleared first, so that no new key meets an old one. A
 * variant whose combination an older variant of its product already has (two written before
 * their values were compared as today, or before an axis left the family) keeps a key made
 * unique by its id, so both stay.
 */
export const writeAxisKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const axes = yield* sql`select fa.family_id, a.id as attribute_id, a.code, a.type
      from family_attributes fa join attributes a on a.id = fa.attribute_id where a.is_variant_axis`.pipe(Effect.flatMap(Schema.decodeUnknown(Axes)))
  const axesOf = new Map<string, Array<Axis>>()
  for (const axis of axes) axesOf.set(axis.familyId, [...(axesOf.get(axis.familyId) ?? []), axis])
  yield* sql`update variants set axis_key = null`
  const seen = new Set<string>()
  let after: { readonly createdAt: string; readonly id: string } | undefined
  while (true) {
    const from = after === undefined ? sql`` : sql`where (v.created_at > ${after.createdAt} or (v.created_at = ${after.createdAt} and v.id > ${after.id}))`
    const rows = yield* sql`select v.id, v.product_id, p.family_id, v.created_at, v.attributes
        from variants v join products p on p.id = v.product_id ${from} order by v.created_at, v.id limit ${BATCH}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Variants))
    )
    for (const row of rows) {
      const key = axisKey(axesOf.get(row.familyId) ?? [], row.attributes)
      if (key === null) continue
      const taken = seen.has(`${row.productId} ${key}`)
      seen.add(`${row.productId} ${key}`)
      yield* sql`update variants set axis_key = ${axisDigest(taken ? `${key} ${row.id}` : key)} where id = ${row.id}`
    }
    const last = rows.at(-1)
    if (last === undefined || rows.length < BATCH) break
    after = last
  }
})
