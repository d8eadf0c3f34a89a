import { Effect, FiberRef } from "effect"

/**
 * The instant of the transaction in hand: taken from the clock at its first reading and
 * repeated by every later one, so a write's `updatedAt` and the `timestamp` of the event that
 * announces it are one instant. A receiver that reconciles with `updatedSince=<timestamp>`
 * then finds the record the event names. Outside a transaction each reading is the clock's.
 */
const writeInstant: FiberRef.FiberRef<{ at: number | undefined } | undefined> = FiberRef.unsafeMake<
  { at: number | undefined } | undefined
>(undefined)

const clock = Effect.clockWith((c) => c.currentTimeMillis)

/** The current instant in milliseconds: the transaction's, once it has one. */
export const currentMillis: Effect.Effect<number> = Effect.flatMap(FiberRef.get(writeInstant), (pinned) =>
  pinned === undefined
    ? clock
    : pinned.at !== undefined
    ? Effect.succeed(pinned.at)
    : Effect.map(clock, (at) => {
      pinned.at ??= at
      return pinned.at
    }))

/** Runs `effect` as one transaction's run: its first reading of the clock is the instant of all of them. */
export const atOneInstant = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => Effect.locally(effect, writeInstant, { at: undefined }))
