import { Clock, Effect } from "effect"

/**
 * A clock that moves on by a millisecond at every reading, from `start`: two readings of one
 * write never agree by chance, so a test sees which instant each part of a write took.
 */
export const steppingClock = (start = "2026-05-01T00:00:00.000Z"): Clock.Clock => {
  let millis = Date.parse(start)
  return Object.assign(Object.create(Clock.make()), {
    currentTimeMillis: Effect.sync(() => ++millis),
    unsafeCurrentTimeMillis: () => ++millis
  })
}
