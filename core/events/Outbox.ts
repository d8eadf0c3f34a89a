import { Context, type Effect } from "effect"
import type { CatalogEvent } from "./Event.js"

/** An event waiting to go to one connector; `id` is its place in the queue. */
export interface QueuedDelivery {
  readonly id: number
  readonly connectorId: string
  readonly event: CatalogEvent
}

/**
 * The deliveries still to make, one queue per connector, queued in the write's transaction for
 * the connectors subscribed then. Dispatchers claim them under a lease, whole connectors at a
 * time: while one dispatcher holds a live claim on a connector's queue, no other claims any of
 * it, so each connector gets its events in the order they were claimed: oldest first among
 * those committed. An event whose write commits after a newer one was claimed (possible on
 * Postgres, where numbers are taken before the commit) comes after it.
 * Run every call in a system transaction.
 */
export class Outbox extends Context.Tag("catalog/Outbox")<Outbox, {
  /**
   * Claims for `holder`, until `until`, up to `limit` queued deliveries, oldest first, of
   * connectors nobody else holds a live claim on (claims that ran out are taken over), but
   * for those in `except`; of at most `connectors` connectors, those waiting longest.
   */
  readonly claim: (
    holder: string,
    now: string,
    until: string,
    limit: number,
    except?: ReadonlyArray<string>,
    connectors?: number
  ) => Effect.Effect<ReadonlyArray<QueuedDelivery>>
  /** Takes these deliveries off their queues; false when `holder` no longer holds the claim of every one. */
  readonly complete: (holder: string, ids: ReadonlyArray<number>) => Effect.Effect<boolean>
  /** Extends every claim `holder` still holds to `until`: the heartbeat of a live dispatcher. */
  readonly renew: (holder: string, until: string) => Effect.Effect<void>
  /** Gives back `holder`'s unfinished claims, for another dispatcher to take at once. */
  readonly release: (holder: string) => Effect.Effect<void>
  /** Gives back `holder`'s claims on one connector's queue only: a connector it failed to serve. */
  readonly giveBack: (holder: string, connectorId: string) => Effect.Effect<void>
}>() {}
