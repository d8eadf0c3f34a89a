import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Variants: SKUs of a product, with their own values. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  // axis_key is the variant's combination of axis values (null without axes): unique per
  // product, so two concurrent writes cannot both claim one combination.
  yield* sql.unsafe(`CREATE TABLE variants (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    sku text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    attributes ${json} NOT NULL,
    axis_key text,
    position integer NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, sku),
    UNIQUE (product_id, axis_key)
  )`)
  yield* sql.unsafe(`CREATE INDEX variants_product ON variants (product_id, position, created_at, id)`)
  yield* tenantTable("variants")
})
