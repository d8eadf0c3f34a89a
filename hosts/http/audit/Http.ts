import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AuditLog } from "../../../core/events/AuditLog.js"
import { millisecondBound } from "../../../core/shared/Calendar.js"
import { CatalogApi } from "../Api.js"

const utc = (s: string | undefined) => (s === undefined ? undefined : millisecondBound(s))

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
