import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The role tenant transactions run as: not an owner, not a superuser, so policies bind it. */
export const APP_ROLE = "catalog_app"

/** The tenant of the current transaction; '' after such a transaction, so policies cast through nullif and fail closed. */
export const CURRENT_ORG = "nullif(current_setting('app.organization_id', true), '')::uuid"

/** Creates the application role once per cluster and grants it the tables of this schema. */
export const ensureAppRole = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () =>
      Effect.gen(function*() {
        yield* sql.unsafe(`DO $$ BEGIN
          CREATE ROLE ${APP_ROLE} NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`)
        // A login role that is no superuser may drop to the role only as its member, which
        // creating it does not make it (Postgres 16 makes it one that cannot SET it).
        yield* sql.unsafe(`DO $$ BEGIN
          IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
            EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user);
          END IF;
        END $$`)
        yield* sql.unsafe(`GRANT USAGE ON SCHEMA public TO ${APP_ROLE}`)
        yield* sql.unsafe(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${APP_ROLE}`)
        yield* sql.unsafe(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${APP_ROLE}`)
      }),
    orElse: () => Effect.void
  })
})

/**
 * Puts `table` under row-level security keyed by `column` (organization_id, or id for the
 * organizations table itself). Forced, so the table owner is bound too.
 */
export const tenantTable = (table: string, column = "organization_id") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      pg: () =>
        Effect.gen(function*() {
          yield* sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${APP_ROLE}`)
          yield* sql.unsafe(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`)
          yield* sql.unsafe(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`)
          yield* sql.unsafe(
            `CREATE POLICY tenant_isolation ON ${table} USING (${column} = ${CURRENT_ORG}) WITH CHECK (${column} = ${CURRENT_ORG})`
          )
        }),
      orElse: () => Effect.void
    })
  })

/** Grants the application role a table that holds no tenant rows. */
export const sharedTable = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.onDialectOrElse({
      pg: () => sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${APP_ROLE}`),
      orElse: () => Effect.void
    })
  })
