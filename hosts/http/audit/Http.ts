import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AuditLog } from "../../../core/events/AuditLog.js"
import { CatalogApi } from "../Api.js"

/**
 * A bound in stored form: ISO in UTC, whole milliseconds. One that falls between two
 * milliseconds moves up to the next, which keeps `since` inclusive and `until` exclusive.
 */
const utc = (s: string | undefined) => {
  if (s === undefined) return undefined
  const submillis = /\.\d{3}(\d+)/.exec(s)?.[1] ?? ""
  return new Date(Date.parse(s) + (/[1-9]/.test(submillis) ? 1 : 0)).toISOString()
}

export const AuditLive = HttpApiBuilder.group(CatalogApi, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    return handlers.handle("list", ({ urlParams: q }) =>
      audit.list({
        entityType: q.entity_type,
        entityId: q.entity_id,
        action: q.action,
        since: utc(q.since),
        until: utc(q.until),
        limit: q.limit ?? 50,
        offset: q.offset ?? 0
      }))
  }))
