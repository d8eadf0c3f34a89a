import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A category link carries its product's family, status, brand and connector, so that facets
 * filtered by those and by a category read one covering index of the links instead of looking
 * every linked product up. The product writes keep them in step: an update rewrites its links,
 * and deleting a brand clears it on the links as on the products.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const column of ["family_id uuid", "status text", "brand_id uuid", "source_connector_id uuid"]) {
    yield* sql.unsafe(`ALTER TABLE product_categories ADD COLUMN ${column}`)
  }
  yield* sql.unsafe(`UPDATE product_categories SET
    family_id = (SELECT p.family_id FROM products p WHERE p.id = product_categories.product_id),
    status = (SELECT p.status FROM products p WHERE p.id = product_categories.product_id),
    brand_id = (SELECT p.brand_id FROM products p WHERE p.id = product_categories.product_id),
    source_connector_id = (SELECT p.source_connector_id FROM products p WHERE p.id = product_categories.product_id)`)
  yield* sql.unsafe(`DROP INDEX product_categories_org`)
  yield* sql.unsafe(`CREATE INDEX product_categories_facets
    ON product_categories (organization_id, category_id, status, family_id, brand_id, source_connector_id, product_id)`)
})
