import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { axisDigest } from "../AxisDigest.js"

const Rows = Schema.Array(Schema.Struct({ id: Schema.String, axisKey: Schema.String }))

/** Variants index the digest of their axis combination instead of the combination itself. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`select id, axis_key from variants where axis_key is not null`.pipe(Effect.flatMap(Schema.decodeUnknown(Rows)))
  for (const row of rows) yield* sql`update variants set axis_key = ${axisDigest(row.axisKey)} where id = ${row.id}`
})
