import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** The run-time schema: attribute groups, attributes, families and their attachments. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  const bool = sql.onDialectOrElse({ pg: () => "boolean", orElse: () => "integer" })

  yield* sql.unsafe(`CREATE TABLE attribute_groups (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code text NOT NULL,
    label ${json} NOT NULL,
    position integer NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, code)
  )`)
  yield* tenantTable("attribute_groups")

  yield* sql.unsafe(`CREATE TABLE attributes (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code text NOT NULL,
    entity_kind text NOT NULL,
    label ${json} NOT NULL,
    type text NOT NULL,
    group_id uuid REFERENCES attribute_groups (id) ON DELETE SET NULL,
    is_localizable ${bool} NOT NULL,
    is_scopable ${bool} NOT NULL,
    requirement text NOT NULL,
    is_variant_axis ${bool} NOT NULL,
    validation ${json},
    default_value ${json},
    position integer NOT NULL,
    created_by text,
    updated_by text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, entity_kind, code)
  )`)
  yield* sql.unsafe(`CREATE INDEX attributes_group ON attributes (group_id)`)
  yield* tenantTable("attributes")

  yield* sql.unsafe(`CREATE TABLE attribute_families (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code text NOT NULL,
    entity_kind text NOT NULL,
    label ${json} NOT NULL,
    description text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, code)
  )`)
  // Category and brand schemas are provisioned on first listing: one family per organization and kind.
  yield* sql.unsafe(
    `CREATE UNIQUE INDEX attribute_families_provisioned ON attribute_families (organization_id, entity_kind) WHERE entity_kind IN ('category', 'brand')`
  )
  yield* sql.unsafe(`CREATE INDEX attribute_families_kind ON attribute_families (organization_id, entity_kind, code)`)
  yield* tenantTable("attribute_families")

  yield* sql.unsafe(`CREATE TABLE family_attributes (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    family_id uuid NOT NULL REFERENCES attribute_families (id) ON DELETE CASCADE,
    attribute_id uuid NOT NULL REFERENCES attributes (id) ON DELETE CASCADE,
    requirement_override text,
    position integer NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (family_id, attribute_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX family_attributes_attribute ON family_attributes (attribute_id)`)
  yield* tenantTable("family_attributes")
})
