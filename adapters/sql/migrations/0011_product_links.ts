import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Links from products: related products and attached modifiers. Either side's deletion takes the link. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE product_relationships (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    related_product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    type text NOT NULL,
    created_at text NOT NULL,
    UNIQUE (product_id, related_product_id, type)
  )`)
  yield* sql.unsafe(`CREATE INDEX product_relationships_related ON product_relationships (related_product_id)`)
  yield* tenantTable("product_relationships")

  yield* sql.unsafe(`CREATE TABLE product_modifiers (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    modifier_id uuid NOT NULL REFERENCES modifiers (id) ON DELETE CASCADE,
    attached_at text NOT NULL,
    -- Attachment order, which timestamps cannot tell within one millisecond.
    position integer NOT NULL,
    PRIMARY KEY (product_id, modifier_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX product_modifiers_modifier ON product_modifiers (modifier_id)`)
  yield* tenantTable("product_modifiers")
})
