import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Orders that pages of links and content pages ask for and no index gave, so that a page no
 * longer reads and sorts every row it might hold:
 * - a product's related products, oldest first (ties by id);
 * - the organization's content pages of one status, and those of one family, in the same order.
 * The index by family alone goes: the new one starts with it, and serves the family's foreign
 * key as it did.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX product_relationships_order ON product_relationships (product_id, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX content_pages_status_order ON content_pages (organization_id, status, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX content_pages_family_order ON content_pages (family_id, created_at, id)`)
  yield* sql.unsafe(`DROP INDEX content_pages_family`)
})
