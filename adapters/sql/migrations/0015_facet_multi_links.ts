import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The products filed in more than one category, found without scanning every link: a product's
 * links take positions 0, 1, ... and are only ever removed, so any product with two links keeps
 * one at a position above 0. Single-category products add no entry.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX product_categories_later ON product_categories (organization_id, product_id) WHERE position > 0`)
})
