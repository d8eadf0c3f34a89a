import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The audit log filtered by `action` matched a suffix of each event's name, so it read the
 * organization's events newest first until a page filled: all of them when few matched. Each
 * event now has its action (the part of its name after the last dot) as a column of its own,
 * which the database derives from the name, for the events already recorded as for new ones.
 * The log is ordered by `created_at` (then event number), with an index per filter set in that
 * order, so that `since` and `until` are ranges of the index too:
 * - (organization, created_at): the whole log, and any date window of it;
 * - (organization, entity_type, created_at), in place of (organization, entity_type, seq);
 * - (organization, action, created_at).
 * SQLite ends every index in the row id, which is `seq`: its (organization, created_at) index
 * already had that order. Postgres gets `seq` in each index, spelled out.
 *
 * A derived column rather than one filled by an UPDATE: Postgres rewrites the table once
 * instead of writing every row again through its indexes (3 s against 11 s at 220,000 events),
 * and SQLite computes it without rewriting anything.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  // SQLite has no regular expressions: the name trimmed of its trailing characters that are
  // not a dot is what precedes the action.
  const action = pg ? String.raw`regexp_replace(name, '^.*\.', '')` : `substr(name, length(rtrim(name, replace(name, '.', ''))) + 1)`
  yield* sql.unsafe(`ALTER TABLE events ADD COLUMN action text GENERATED ALWAYS AS (${action}) ${pg ? "STORED" : "VIRTUAL"}`)
  const seq = pg ? ", seq" : ""
  yield* sql.unsafe(`DROP INDEX events_org_type`)
  yield* sql.unsafe(`CREATE INDEX events_org_type ON events (organization_id, entity_type, created_at${seq})`)
  yield* sql.unsafe(`CREATE INDEX events_org_action ON events (organization_id, action, created_at${seq})`)
  if (pg) {
    yield* sql.unsafe(`DROP INDEX events_org_created`)
    yield* sql.unsafe(`CREATE INDEX events_org_created ON events (organization_id, created_at, seq)`)
  }
})
