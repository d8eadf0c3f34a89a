import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ensureAppRole, sharedTable, tenantTable } from "../Rls.js"

/** Organizations, users, memberships, invites, API keys and the event outbox. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const json = sql.onDialectOrElse({ pg: () => "jsonb", orElse: () => "text" })
  const bool = sql.onDialectOrElse({ pg: () => "boolean", orElse: () => "integer" })
  yield* ensureAppRole

  yield* sql.unsafe(`CREATE TABLE organizations (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    slug text NOT NULL UNIQUE,
    settings ${json},
    billing ${json},
    created_at text NOT NULL,
    updated_at text NOT NULL
  )`)
  yield* tenantTable("organizations", "id")

  yield* sql.unsafe(`CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text,
    created_at text NOT NULL,
    updated_at text NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX users_email ON users (lower(email))`)
  yield* sharedTable("users")

  yield* sql.unsafe(`CREATE TABLE memberships (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role text NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (organization_id, user_id)
  )`)
  yield* sql.unsafe(`CREATE INDEX memberships_user ON memberships (user_id)`)
  yield* tenantTable("memberships")

  yield* sql.unsafe(`CREATE TABLE invites (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email text NOT NULL,
    role text NOT NULL,
    created_at text NOT NULL,
    PRIMARY KEY (organization_id, email)
  )`)
  yield* sql.unsafe(`CREATE INDEX invites_email ON invites (email)`)
  yield* tenantTable("invites")

  yield* sql.unsafe(`CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name text NOT NULL,
    prefix text NOT NULL,
    key_hash text NOT NULL UNIQUE,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    last_used_at text,
    expires_at text,
    revoked_at text
  )`)
  yield* sql.unsafe(`CREATE INDEX api_keys_org ON api_keys (organization_id, created_at)`)
  yield* tenantTable("api_keys")

  // The outbox and audit log. No foreign key: organization.deleted outlives its tenant.
  const seq = sql.onDialectOrElse({
    pg: () => "seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    orElse: () => "seq integer PRIMARY KEY AUTOINCREMENT"
  })
  yield* sql.unsafe(`CREATE TABLE events (
    ${seq},
    id uuid NOT NULL UNIQUE,
    organization_id uuid NOT NULL,
    name text NOT NULL,
    entity_type text NOT NULL,
    entity_id text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    payload ${json} NOT NULL,
    created_at text NOT NULL,
    dispatched ${bool} NOT NULL DEFAULT ${sql.onDialectOrElse({ pg: () => "false", orElse: () => "0" })}
  )`)
  yield* sql.unsafe(`CREATE INDEX events_org_created ON events (organization_id, created_at)`)
  yield* sql.unsafe(`CREATE INDEX events_org_entity ON events (organization_id, entity_id)`)
  yield* sql.unsafe(`CREATE INDEX events_pending ON events (seq) WHERE dispatched = ${sql.onDialectOrElse({ pg: () => "false", orElse: () => "0" })}`)
  yield* tenantTable("events")
})
