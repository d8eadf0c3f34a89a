import { type Duration, Effect } from "effect"

/** Whether `check` holds within `tries` looks, `interval` apart (live clock). */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, tries = 60, interval: Duration.DurationInput = "500 millis") =>
  Effect.gen(function*() {
    for (let i = 0; i < tries; i++) {
      yield* Effect.sleep(interval)
      if (yield* check) return true
    }
    return false
  })
