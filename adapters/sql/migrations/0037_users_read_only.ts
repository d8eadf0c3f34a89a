import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { APP_ROLE } from "../Rls.js"

/**
 * Postgres only: the application role may read users, no longer write them. Users belong to
 * no organization, so no policy filters them, and a tenant transaction could delete another
 * organization's member (its memberships going with it) or change their email. Users are
 * only written outside tenant transactions, by the login role; a tenant still reads them to
 * seat an initial admin who already belongs elsewhere.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    pg: () => sql.unsafe(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON users FROM ${APP_ROLE}`),
    orElse: () => Effect.void
  })
})
