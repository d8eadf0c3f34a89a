import type { HttpApp } from "@effect/platform"
import { Duration, Effect } from "effect"

/** Counts requests being served, so a shutdown can wait for them to finish. */
export const makeInFlight = () => {
  let active = 0
  /** Serve-level middleware: counts a request from arrival until its response is written. */
  const track = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.acquireUseRelease(
      Effect.sync(() => active++),
      () => app,
      () => Effect.sync(() => active--)
    )
  /** Waits until nothing is in flight, or `limit` has passed; answers whether it drained. */
  const drained = (limit: Duration.DurationInput) =>
    Effect.gen(function*() {
      const deadline = Date.now() + Duration.toMillis(limit)
      while (active > 0 && Date.now() < deadline) yield* Effect.sleep("20 millis")
      return active === 0
    })
  return { track, drained, count: () => active }
}
