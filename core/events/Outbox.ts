import { Context, type Effect } from "effect"
import type { CatalogEvent } from "./Event.js"

/**
 * The undelivered events, claimed by dispatchers under a lease. A claim covers whole
 * organizations: while one dispatcher holds a live claim on an organization's events, no
 * other claims any of that organization's events, so each connector sees them in the order
 * they were claimed: oldest first among those committed. An event whose write commits after a
 * newer one was claimed (possible on Postgres, where numbers are taken before the commit) comes
 * after it.
 * Run every call in a system transaction.
 */
export class Outbox extends Context.Tag("catalog/Outbox")<Outbox, {
  /**
   * Claims for `holder`, until `until`, up to `limit` undelivered events, oldest first, of
   * organizations nobody else holds a live claim on (claims that ran out are taken over).
   */
  readonly claim: (holder: string, now: string, until: string, limit: number) => Effect.Effect<ReadonlyArray<CatalogEvent>>
  /** Marks events delivered; false when `holder` no longer holds the claim of every one of them. */
  readonly complete: (holder: string, eventIds: ReadonlyArray<string>) => Effect.Effect<boolean>
  /** Extends every claim `holder` still holds to `until`: the heartbeat of a live dispatcher. */
  readonly renew: (holder: string, until: string) => Effect.Effect<void>
  /** Gives back `holder`'s unfinished claims, for another dispatcher to take at once. */
  readonly release: (holder: string) => Effect.Effect<void>
  /** Gives back `holder`'s claims of these events only: an organization it failed to serve. */
  readonly giveBack: (holder: string, eventIds: ReadonlyArray<string>) => Effect.Effect<void>
}>() {}
