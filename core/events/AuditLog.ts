import { Context, Effect, Layer } from "effect"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { type AuditFilter, type AuditPage, toAuditEntry } from "./AuditEntry.js"
import { EventLog } from "./EventLog.js"

/** Reading the current organization's events: who changed what, and when. */
export class AuditLog extends Context.Tag("catalog/AuditLog")<AuditLog, {
  readonly list: (filter: AuditFilter) => Effect.Effect<AuditPage, never, CurrentTenant>
}>() {}

export const makeAuditLog = Effect.gen(function*() {
  const events = yield* EventLog
  const uow = yield* UnitOfWork
  return AuditLog.of({
    list: (filter) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const page = yield* uow.tenant(tenant.organizationId, events.list(tenant.organizationId, filter))
        return { data: page.events.map(toAuditEntry), limit: filter.limit, offset: filter.offset, hasMore: page.hasMore }
      })
  })
})

export const AuditLogLive = Layer.effect(AuditLog, makeAuditLog)
