import { Cause, Duration, Effect, Ref } from "effect"

/**
 * Counts the failures of a repeated step in a row, so an outage is logged in full once and
 * then in one line per attempt, with the wait before the next one doubling up to `maxWait`.
 */
export const makeFailureStreak = (what: string, firstWait: Duration.DurationInput, maxWait: Duration.DurationInput) =>
  Effect.map(Ref.make(0), (count) => {
    const first = Duration.decode(firstWait)
    const max = Duration.max(first, Duration.decode(maxWait))
    const waitAfter = (failures: number) => Duration.min(max, Duration.times(first, 2 ** Math.min(failures - 1, 30)))

    /** Logs the failure and answers how long to wait before trying again. */
    const failed = (cause: Cause.Cause<unknown>) =>
      Effect.flatMap(Ref.updateAndGet(count, (n) => n + 1), (n) => {
        const wait = waitAfter(n)
        const log = n === 1
          ? Effect.logError(`${what} failed; retrying`, cause)
          : Effect.logWarning(
            `${what} failed again (${n} times in a row): ${oneLine(Cause.squash(cause))}; next attempt in ${Duration.format(wait)}`
          )
        return Effect.as(log, wait)
      })

    const succeeded = Effect.flatMap(
      Ref.getAndSet(count, 0),
      (n) => n === 0 ? Effect.void : Effect.logInfo(`${what} works again, after ${n} failed attempts`)
    )
    return { failed, succeeded } as const
  })

/** An error and the errors it wraps, in one line: `SqlError: Failed to prepare statement: no such table: events`. */
const oneLine = (error: unknown): string => {
  const parts: Array<string> = []
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}`.trim() : String(e))
    e = e instanceof Error ? e.cause : undefined
  }
  return parts.join(": ").replace(/\s+/g, " ")
}
