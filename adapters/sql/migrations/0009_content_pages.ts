import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { tenantTable } from "../Rls.js"

/** Content pages: editorial records shaped by a content family. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  // The family reference has no ON DELETE action: deleting a family in use is refused (409),
  // and the organization's cascade removes pages and families in one statement.
  yield* sql.unsafe(`CREATE TABLE content_pages (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    family_id uuid NOT NULL REFERENCES attribute_families (id),
    title text NOT NULL,
    slug text NOT NULL,
    status text NOT NULL,
    attributes ${json} NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    UNIQUE (organization_id, slug)
  )`)
  yield* sql.unsafe(`CREATE INDEX content_pages_created ON content_pages (organization_id, created_at, id)`)
  yield* sql.unsafe(`CREATE INDEX content_pages_family ON content_pages (family_id)`)
  yield* tenantTable("content_pages")
})
