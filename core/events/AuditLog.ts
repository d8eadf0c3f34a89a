import { Context, Effect, Layer } from "effect"
import { millisecondBound } from "../shared/Calendar.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { type AuditFilter, type AuditPage, toAuditEntry } from "./AuditEntry.js"
import { EventLog } from "./EventLog.js"

/** Reading the current organization's events: who changed what, and when. */
export class AuditLog extends Context.Tag("catalog/AuditLog")<AuditLog, {
  readonly list: (filter: AuditFilter) => Effect.Effect<AuditPage, never, CurrentTenant>
}>() {}

/**
 * A bound as events are stamped (`toISOString`, whole milliseconds), which they are compared
 * with as text: `10:00:00Z` or `11:00+01:00` would order after an event stamped `10:00:00.000Z`.
 */
const asStamped = (bound: string | undefined) =>
  bound === undefined || Number.isNaN(Date.parse(bound)) ? bound : millisecondBound(bound)

const makeAuditLog = Effect.gen(function*() {
  const events = yield* EventLog
  const uow = yield* UnitOfWork
  return AuditLog.of({
    list: (filter) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const bounded = { ...filter, since: asStamped(filter.since), until: asStamped(filter.until) }
        const page = yield* uow.tenant(tenant.organizationId, events.list(tenant.organizationId, bounded))
        return { data: page.events.map(toAuditEntry), limit: filter.limit, offset: filter.offset, hasMore: page.hasMore }
      })
  })
})

export const AuditLogLive = Layer.effect(AuditLog, makeAuditLog)
