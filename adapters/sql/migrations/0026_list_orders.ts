import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Orders that lists ask for and no index gave, so that a page no longer reads and sorts
 * every product or event of the organization:
 * - products by status (`sortBy=status`, ties by id);
 * - products by id: the list without a search under `sortBy=relevance`, and the products
 *   without the value after the valued ones under `sortBy=attribute`;
 * - events of one entity type, newest first (the audit log's `entity_type`); Postgres also
 *   gets the organization's events newest first, which SQLite has had since migration 18.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX products_status_order ON products (organization_id, status, id)`)
  yield* sql.unsafe(`CREATE INDEX products_id_order ON products (organization_id, id)`)
  yield* sql.unsafe(`CREATE INDEX events_org_type ON events (organization_id, entity_type, seq)`)
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (pg) yield* sql.unsafe(`CREATE INDEX events_org_seq ON events (organization_id, seq)`)
})
