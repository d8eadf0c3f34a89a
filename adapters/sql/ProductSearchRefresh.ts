import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { productSearchText } from "../../core/products/ProductValues.js"
import { chunksOf, StoredValuesColumn } from "./Columns.js"

const ProductRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  id: Schema.String,
  familyId: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  attributes: StoredValuesColumn,
  searchText: Schema.String
})))
const SpecRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ familyId: Schema.String, code: Schema.String, type: Schema.String })))

/**
 * Makes the stored search text of these products match the values they hold now, after a
 * change to their values made outside the product repository (an attribute's deletion).
 */
export const refreshSearchText = (sql: SqlClient.SqlClient, organizationId: string, ids: ReadonlyArray<string>) =>
  Effect.forEach(chunksOf(ids, 500), (chunk) =>
    Effect.gen(function*() {
      const rows = yield* sql`select id, family_id, name, slug, attributes, search_text from products
        where organization_id = ${organizationId} and ${sql.in("id", chunk)}`.pipe(Effect.flatMap(ProductRows))
      const familyIds = [...new Set(rows.map((r) => r.familyId))]
      const specs = familyIds.length === 0 ? [] : yield* sql`select fa.family_id, a.code, a.type
        from family_attributes fa join attributes a on a.id = fa.attribute_id
        where ${sql.in("fa.family_id", familyIds)} order by fa.position, a.code`.pipe(Effect.flatMap(SpecRows))
      for (const row of rows) {
        const text = productSearchText(row.name, row.slug, row.attributes, specs.filter((s) => s.familyId === row.familyId))
        if (text !== row.searchText) yield* sql`update products set search_text = ${text} where id = ${row.id}`
      }
    }), { discard: true }).pipe(Effect.orDie)
