import { Context, Effect } from "effect"
import { Crypto } from "../shared/Crypto.js"
import { currentMillis } from "../shared/WriteInstant.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import type { AuditFilter } from "./AuditEntry.js"
import { CatalogEvent, type NewEvent } from "./Event.js"

/** The outbox: events are appended inside the write's transaction. */
export class EventLog extends Context.Tag("catalog/EventLog")<EventLog, {
  /** Appends events in order; call it inside the transaction of the writes they announce. */
  readonly append: (events: ReadonlyArray<CatalogEvent>) => Effect.Effect<void>
  /**
   * Appends events already sent to their receivers: audit entries the dispatcher never sends.
   * Dies with `OrganizationGone` when their organization was deleted meanwhile.
   */
  readonly appendSent: (events: ReadonlyArray<CatalogEvent>) => Effect.Effect<void>
  /**
   * One organization's events matching `filter`, newest first: `filter.limit` of them from
   * `filter.offset`, and whether more follow.
   */
  readonly list: (
    organizationId: string,
    filter: AuditFilter
  ) => Effect.Effect<{ readonly events: ReadonlyArray<CatalogEvent>; readonly hasMore: boolean }>
}>() {}

/**
 * Takes `Crypto` and the `EventLog` once, where a use case is built, and answers what provides
 * them to an effect, so that its operations ask only for the tenant.
 */
export const eventServices = Effect.gen(function*() {
  const crypto = yield* Crypto
  const events = yield* EventLog
  return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(Crypto, crypto), Effect.provideService(EventLog, events))
})

/** Records `event` as done by the current actor in the current organization. */
export const emit = (event: NewEvent): Effect.Effect<CatalogEvent, never, EventLog | CurrentTenant | Crypto> =>
  Effect.gen(function*() {
    const tenant = yield* CurrentTenant
    const record = yield* makeEvent(tenant.organizationId, tenant.actor, event)
    yield* (yield* EventLog).append([record])
    return record
  })

/** Records many events at once (one write for a batch), as done by the current actor. */
export const emitAll = (events: ReadonlyArray<NewEvent>): Effect.Effect<void, never, EventLog | CurrentTenant | Crypto> =>
  Effect.gen(function*() {
    const tenant = yield* CurrentTenant
    const records = yield* Effect.forEach(events, (event) => makeEvent(tenant.organizationId, tenant.actor, event))
    yield* (yield* EventLog).append(records)
  })

export const makeEvent = (
  organizationId: string,
  actor: CatalogEvent["actor"],
  event: NewEvent
): Effect.Effect<CatalogEvent, never, Crypto> =>
  Effect.gen(function*() {
    const crypto = yield* Crypto
    // The instant of the write it announces, when made inside that write's transaction.
    const now = yield* currentMillis
    return new CatalogEvent({
      id: yield* crypto.uuid,
      organizationId,
      name: event.name,
      entityType: event.entityType,
      entityId: event.entityId,
      actor,
      payload: event.payload ?? {},
      createdAt: new Date(now).toISOString()
    })
  })
