import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { APP_ROLE, CURRENT_ORG } from "../Rls.js"

/**
 * Under row-level security Postgres neither uses an index for an operator that is not
 * leakproof nor reads its statistics, and `LIKE` and `~` are not: every search scanned the
 * whole products table. Searches read through this view instead. Its owner, the migrating
 * role, bypasses row-level security, and the view applies the policy's predicate itself, so
 * the application role sees its own organization's products through it, and none without
 * the setting; it may only read it.
 *
 * It is deliberately neither `security_invoker` (the policy would bind the reader again) nor
 * `security_barrier` (its predicate would run first and the `LIKE` be a filter on every row of
 * the organization, off the index). So Postgres may run a query's own conditions on other
 * organizations' rows before this predicate: a condition on the view must not be able to fail
 * on, or report, a row's value (no casts of columns, no raising functions). Those the
 * lists and facets use are comparisons with parameters, `IN`, `LIKE` and `~` with patterns
 * fixed in the query.
 *
 * `*` is expanded now: a migration that adds a column to `products` recreates the view.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (!pg) return
  yield* sql.unsafe(`CREATE VIEW tenant_products AS SELECT * FROM products WHERE organization_id = ${CURRENT_ORG}`)
  // The schema's default privileges would let the application role write through it too.
  yield* sql.unsafe(`REVOKE ALL ON tenant_products FROM ${APP_ROLE}`)
  yield* sql.unsafe(`GRANT SELECT ON tenant_products TO ${APP_ROLE}`)
})
