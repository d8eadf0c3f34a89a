import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { writeNameKeys } from "./NameKeys.js"

const Organizations = Schema.Array(Schema.Struct({ organizationId: Schema.String }))

/**
 * Name keys drop the zero-width space as the other invisible format characters (`caseKey`), so
 * a brand named `Acme` followed by one is `Acme`, as it looks. The keys of the organizations with a brand or category whose
 * name holds one are written again, cleared first as in migration 28; no other row is written.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["brands", "categories"] as const) {
    const organizations = yield* sql`select distinct organization_id from ${sql(table)} where name like ${"%\u200b%"}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Organizations))
    )
    for (const { organizationId } of organizations) {
      yield* sql`update ${sql(table)} set name_key = id where organization_id = ${organizationId}`
      yield* writeNameKeys(table, organizationId)
    }
  }
})
