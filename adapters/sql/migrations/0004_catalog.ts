import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/**
 * Categories, brands and products, with the side tables the storefront queries read: tags,
 * category assignments, numeric values for attribute sort and filter, and the search index
 * (Postgres: full-text vector and trigrams; SQLite: FTS5 with the trigram tokenizer).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const json = pg ? "jsonb" : "text"
  const real = pg ? "double precision" : "real"

  yield* sql.unsafe(`CREATE TABLE categories (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    parent_id uuid REFERENCES categories (id) ON DELETE CASCADE,
    name text NOT NULL,
    slug text NOT NULL,
    position integer NOT NULL,
    attributes ${json} NOT NULL,
    created_by text,
    updated_by text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, slug)
  )`)
  yield* sql.unsafe(`CREATE INDEX categories_parent ON categories (organization_id, parent_id, position, name)`)
  yield* sql.unsafe(`CREATE INDEX categories_parent_id ON categories (parent_id)`)
  yield* tenantTable("categories")

  yield* sql.unsafe(`CREATE TABLE brands (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name text NOT NULL,
    slug text NOT NULL,
    attributes ${json} NOT NULL,
    created_by text,
    updated_by text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, slug)
  )`)
  yield* sql.unsafe(`CREATE UNIQUE INDEX brands_name ON brands (organization_id, lower(name))`)
  yield* tenantTable("brands")

  // SQLite keys the FTS5 index by an integer rowid, so products carry one there.
  const key = pg ? "id uuid PRIMARY KEY" : "seq integer PRIMARY KEY, id uuid NOT NULL UNIQUE"
  // A family in use cannot be deleted: the family repository turns the violation into 409.
  yield* sql.unsafe(`CREATE TABLE products (
    ${key},
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    family_id uuid NOT NULL REFERENCES attribute_families (id) ON DELETE RESTRICT,
    name text NOT NULL,
    slug text NOT NULL,
    status text NOT NULL,
    brand_id uuid REFERENCES brands (id) ON DELETE SET NULL,
    attributes ${json} NOT NULL,
    tags ${json} NOT NULL,
    source_connector_id uuid,
    search_text text NOT NULL,
    created_by text,
    updated_by text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, slug)
  )`)
  yield* sql.unsafe(`CREATE INDEX products_created ON products (organization_id, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX products_updated ON products (organization_id, updated_at, id)`)
  yield* sql.unsafe(`CREATE INDEX products_name ON products (organization_id, name, id)`)
  yield* sql.unsafe(`CREATE INDEX products_status ON products (organization_id, status, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX products_family ON products (family_id, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX products_brand ON products (brand_id, created_at, id)`)
  yield* sql.unsafe(
    `CREATE INDEX products_connector ON products (organization_id, source_connector_id) WHERE source_connector_id IS NOT NULL`
  )
  yield* tenantTable("products")

  yield* sql.unsafe(`CREATE TABLE product_categories (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    category_id uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    position integer NOT NULL,
    PRIMARY KEY (product_id, category_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX product_categories_category ON product_categories (category_id, product_id)`)
  yield* tenantTable("product_categories")

  yield* sql.unsafe(`CREATE TABLE product_tags (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    tag text NOT NULL,
    PRIMARY KEY (product_id, tag)
  )`)
  yield* sql.unsafe(`CREATE INDEX product_tags_tag ON product_tags (organization_id, tag, product_id)`)
  yield* tenantTable("product_tags")

  // Sortable numbers at the default scope (money as amount_cents), keyed by attribute id so an
  // attribute's deletion takes its values along and a renamed code keeps them.
  yield* sql.unsafe(`CREATE TABLE product_numbers (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    attribute_id uuid NOT NULL REFERENCES attributes (id) ON DELETE CASCADE,
    value ${real} NOT NULL,
    PRIMARY KEY (product_id, attribute_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX product_numbers_sort ON product_numbers (attribute_id, value, product_id)`)
  yield* tenantTable("product_numbers")

  if (pg) {
    yield* sql.unsafe(`CREATE EXTENSION IF NOT EXISTS pg_trgm`)
    yield* sql.unsafe(
      `ALTER TABLE products ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED`
    )
    yield* sql.unsafe(`CREATE INDEX products_search_vector ON products USING gin (search_vector)`)
    yield* sql.unsafe(`CREATE INDEX products_search_trgm ON products USING gin (search_text gin_trgm_ops)`)
  } else {
    yield* sql.unsafe(
      `CREATE VIRTUAL TABLE products_fts USING fts5(search_text, content='products', content_rowid='seq', tokenize='trigram')`
    )
    yield* sql.unsafe(`CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
      INSERT INTO products_fts (rowid, search_text) VALUES (new.seq, new.search_text);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
      INSERT INTO products_fts (products_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
    END`)
    yield* sql.unsafe(`CREATE TRIGGER products_fts_update AFTER UPDATE OF search_text ON products
      WHEN old.search_text IS NOT new.search_text BEGIN
      INSERT INTO products_fts (products_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
      INSERT INTO products_fts (rowid, search_text) VALUES (new.seq, new.search_text);
    END`)
  }
})
