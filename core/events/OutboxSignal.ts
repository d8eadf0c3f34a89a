import { Context, Duration, Effect, FiberRef, Layer, Queue } from "effect"

/**
 * Wakes this process's dispatcher when a transaction that appended events commits, so new
 * events go out at once instead of at the next poll. Wake-ups coalesce; a lost one only
 * delays delivery until the next poll.
 */
export class OutboxSignal extends Context.Tag("catalog/OutboxSignal")<OutboxSignal, {
  readonly wake: Effect.Effect<void>
  /** Waits for a wake-up, or at most `timeout`. */
  readonly sleep: (timeout: Duration.DurationInput) => Effect.Effect<void>
}>() {}

/** Set by the event log when the current transaction appended an event. */
export const appendedEvents: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

export const OutboxSignalLive = Layer.effect(
  OutboxSignal,
  Effect.map(Queue.sliding<void>(1), (queue) =>
    OutboxSignal.of({
      wake: Effect.asVoid(Queue.offer(queue, undefined)),
      sleep: (timeout) => Effect.asVoid(Effect.timeoutOption(Queue.take(queue), timeout))
    }))
)
