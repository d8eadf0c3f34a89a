import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Modifiers: purchase-time options defined once per organization. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  yield* sql.unsafe(`CREATE TABLE modifiers (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code text NOT NULL,
    name text NOT NULL,
    type text NOT NULL,
    options ${json} NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, code)
  )`)
  yield* tenantTable("modifiers")
})
