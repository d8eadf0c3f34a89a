import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Media: uploaded files, attached to a product until detached. The bytes live in the blob store. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE media (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid REFERENCES products (id) ON DELETE CASCADE,
    blob_key text NOT NULL,
    filename text NOT NULL,
    content_type text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    alt text,
    position integer NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX media_product ON media (product_id, position, created_at, id)`)
  yield* tenantTable("media")
})
