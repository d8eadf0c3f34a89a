import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Each foreign key from one tenant record to another: table, column, referenced table, action on delete. */
const LINKS: ReadonlyArray<readonly [table: string, column: string, references: string, onDelete: string]> = [
  ["attributes", "group_id", "attribute_groups", "SET NULL"],
  ["family_attributes", "attribute_id", "attributes", "CASCADE"],
  ["family_attributes", "family_id", "attribute_families", "CASCADE"],
  ["connector_deliveries", "connector_id", "connectors", "CASCADE"],
  ["categories", "parent_id", "categories", "CASCADE"],
  ["products", "brand_id", "brands", "SET NULL"],
  ["products", "family_id", "attribute_families", "RESTRICT"],
  ["product_categories", "category_id", "categories", "CASCADE"],
  ["product_categories", "product_id", "products", "CASCADE"],
  ["product_tags", "product_id", "products", "CASCADE"],
  ["product_numbers", "attribute_id", "attributes", "CASCADE"],
  ["product_numbers", "product_id", "products", "CASCADE"],
  ["content_pages", "family_id", "attribute_families", "NO ACTION"],
  ["variants", "product_id", "products", "CASCADE"],
  ["product_relationships", "product_id", "products", "CASCADE"],
  ["product_relationships", "related_product_id", "products", "CASCADE"],
  ["product_modifiers", "modifier_id", "modifiers", "CASCADE"],
  ["product_modifiers", "product_id", "products", "CASCADE"],
  ["media", "product_id", "products", "CASCADE"]
]

/**
 * Postgres: a record may name only records of its own organization, and the database says so.
 * Row-level security keeps a tenant's statements to its rows, but a foreign key is checked
 * without it, so a key on the id alone let a row point at another organization's brand,
 * category or product, held back by the application's checks only. Each such key now takes
 * the organization along: `(organization_id, brand_id)` references `brands (organization_id,
 * id)`, with the same action on delete. Where that action sets the column to null, which a
 * key over both columns would do to `organization_id` too, the key on the id stays for it and
 * the key over both is added beside it.
 *
 * SQLite has no row-level security either: a file holds what its one process writes, and the
 * application's checks are its tenancy.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  if (!pg) return
  // What a key over both columns references; products already had the index, not yet unique.
  yield* sql.unsafe(`DROP INDEX products_id_order`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX products_id_order ON products (organization_id, id)`)
  for (const table of new Set(LINKS.map(([, , references]) => references).filter((t) => t !== "products"))) {
    yield* sql.unsafe(`CREATE UNIQUE INDEX ${table}_tenant_id ON ${table} (organization_id, id)`)
  }
  for (const [table, column, references, onDelete] of LINKS) {
    const name = `${table}_${column}_fkey`
    const both = `FOREIGN KEY (organization_id, ${column}) REFERENCES ${references} (organization_id, id)`
    yield* sql.unsafe(
      onDelete === "SET NULL"
        ? `ALTER TABLE ${table} ADD CONSTRAINT ${table}_${column}_tenant_fkey ${both}`
        : `ALTER TABLE ${table} DROP CONSTRAINT ${name}, ADD CONSTRAINT ${name} ${both} ON DELETE ${onDelete}`
    )
  }
})
