import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { caseKey } from "../../../core/catalog/Text.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))

/**
 * Name keys ignore spacing too (`caseKey`), so brands named `Acme` and `Acme ` are one name.
 * The oldest keeps the plain key; a later brand with the same key keeps one made unique by its
 * id, as in migration 22. Keys are cleared first, so that no new key meets an old one.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["brands", "categories"]) {
    const rows = yield* sql`select id, organization_id, name from ${sql(table)} order by created_at, id`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Rows))
    )
    yield* sql`update ${sql(table)} set name_key = id`
    const seen = new Set<string>()
    for (const row of rows) {
      const key = caseKey(row.name)
      const unique = table === "brands" && seen.has(`${row.organizationId} ${key}`) ? `${key} ${row.id}` : key
      seen.add(`${row.organizationId} ${unique}`)
      yield* sql`update ${sql(table)} set name_key = ${unique} where id = ${row.id}`
    }
  }
})
