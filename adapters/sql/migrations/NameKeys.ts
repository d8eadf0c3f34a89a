import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { caseKey } from "../../../core/catalog/Text.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, organizationId: Schema.String, name: Schema.String }))

/**
 * Writes each row's name key (`caseKey`), oldest first, of every organization or of one. A brand
 * whose key an older brand of its organization already has keeps a key made unique by its id,
 * so both stay.
 */
export const writeNameKeys = (table: "brands" | "categories", organizationId?: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const of = organizationId === undefined ? sql`` : sql`where organization_id = ${organizationId}`
    const rows = yield* sql`select id, organization_id, name from ${sql(table)} ${of} order by created_at, id`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Rows))
    )
    const seen = new Set<string>()
    for (const row of rows) {
      const key = caseKey(row.name)
      const unique = table === "brands" && seen.has(`${row.organizationId} ${key}`) ? `${key} ${row.id}` : key
      seen.add(`${row.organizationId} ${unique}`)
      yield* sql`update ${sql(table)} set name_key = ${unique} where id = ${row.id}`
    }
  })
