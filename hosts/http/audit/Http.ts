import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AuditLog } from "../../../core/events/AuditLog.js"
import { millisecondBound, nextMidnight } from "../../../core/shared/Calendar.js"
import { CatalogApi } from "../Api.js"

const utc = (s: string | undefined) => (s === undefined ? undefined : millisecondBound(s))

/** The later of two lower bounds, or the earlier of two upper bounds (ISO text in UTC orders as text). */
const tighter = (a: string | undefined, b: string | undefined, pick: (x: string, y: string) => string) =>
  a === undefined ? b : b === undefined ? a : pick(a, b)
const later = (x: string, y: string) => (x > y ? x : y)
const earlier = (x: string, y: string) => (x < y ? x : y)

/** `date` is the UTC day from its midnight (inclusive) to the next (exclusive). */
const dayBounds = (day: string | undefined) =>
  day === undefined ? { since: undefined, until: undefined } : { since: millisecondBound(day), until: nextMidnight(day) }

export const AuditLive = HttpApiBuilder.group(CatalogApi, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    return handlers.handle("list", ({ urlParams: q }) => {
      const day = dayBounds(q.date)
      return audit.list({
        entityType: q.entity_type,
        entityId: q.entity_id,
        action: q.action,
        since: tighter(utc(q.since), day.since, later),
        until: tighter(utc(q.until), day.until, earlier),
        limit: q.limit ?? 50,
        offset: q.offset ?? 0
      })
    })
  }))
