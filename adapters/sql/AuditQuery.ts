import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AuditFilter } from "../../core/events/AuditEntry.js"
import { decodeEventRows, toCatalogEvent } from "./EventRow.js"

/**
 * One page of an organization's audit log, newest first: by `created_at`, then by event number
 * among the events of one instant. Each filter set has an index in that order (migration 32):
 * (organization, created_at), (organization, entity_type, created_at) and (organization,
 * action, created_at), so a page reads its own rows (and the offset) and no more, `since` and
 * `until` included; `entity_id` looks the entity's events up and orders those. On Postgres the
 * indexes end in `seq`; on SQLite every index ends in the row id, which is `seq`.
 */
export const auditStatement = (sql: SqlClient.SqlClient, organizationId: string, f: AuditFilter) => {
  const conditions = [sql`organization_id = ${organizationId}`]
  if (f.entityType !== undefined) conditions.push(sql`entity_type = ${f.entityType}`)
  if (f.entityId !== undefined) conditions.push(sql`entity_id = ${f.entityId}`)
  if (f.action !== undefined) conditions.push(sql`action = ${f.action}`)
  if (f.since !== undefined) conditions.push(sql`created_at >= ${f.since}`)
  if (f.until !== undefined) conditions.push(sql`created_at < ${f.until}`)
  return sql`select id, organization_id, name, entity_type, entity_id, actor_type, actor_id, payload, created_at from events
             where ${sql.and(conditions)}
             order by created_at desc, seq desc limit ${f.limit + 1} offset ${f.offset}`
}

/** The page of `auditStatement`, and whether more follow. */
export const auditPage = (sql: SqlClient.SqlClient, organizationId: string, f: AuditFilter) =>
  auditStatement(sql, organizationId, f).pipe(
    Effect.flatMap(decodeEventRows),
    Effect.orDie,
    Effect.map((rows) => ({ events: rows.slice(0, f.limit).map(toCatalogEvent), hasMore: rows.length > f.limit }))
  )
