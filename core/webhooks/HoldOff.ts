import { Duration } from "effect"

/** Unanswered attempts in a row (timeouts, network errors) after which a connector is held off. */
export const UNANSWERED_BEFORE_HOLD_OFF = 3

interface Streak {
  readonly unanswered: number
  readonly holdOffs: number
  readonly until: number
  /** When the last attempt was recorded. */
  readonly at: number
}

/**
 * Which connectors a dispatcher leaves alone for a while: one whose receiver did not answer
 * `UNANSWERED_BEFORE_HOLD_OFF` times in a row, for `first`, doubling with each hold-off in a
 * row up to `max`. An answered attempt (any status) forgets the streak, and so does `max` passing
 * after the last attempt and the hold-off with no attempt since: a connector deleted, or one
 * with nothing more to send, would otherwise be remembered for as long as the process runs. Each attempt to a
 * receiver that times out holds one of the dispatcher's fibers for the whole timeout; held
 * off, such receivers leave the fibers to the others. Their deliveries wait in the queue meanwhile.
 */
export const makeHoldOff = (first: Duration.DurationInput, max: Duration.DurationInput) => {
  const firstMillis = Duration.toMillis(first)
  const maxMillis = Math.max(firstMillis, Duration.toMillis(max))
  const streaks = new Map<string, Streak>()

  return {
    /** Records an attempt; true when the connector is now held off and its run should stop. */
    attempted: (connectorId: string, answered: boolean, now: number): boolean => {
      if (answered) {
        streaks.delete(connectorId)
        return false
      }
      const streak = streaks.get(connectorId) ?? { unanswered: 0, holdOffs: 0, until: 0, at: now }
      const unanswered = streak.unanswered + 1
      if (unanswered < UNANSWERED_BEFORE_HOLD_OFF) {
        streaks.set(connectorId, { ...streak, unanswered, at: now })
        return false
      }
      const holdOffs = streak.holdOffs + 1
      const wait = Math.min(maxMillis, firstMillis * 2 ** Math.min(holdOffs - 1, 30))
      streaks.set(connectorId, { unanswered: 0, holdOffs, until: now + wait, at: now })
      return true
    },
    /** Whether `connectorId` is held off at `now`. */
    holds: (connectorId: string, now: number): boolean => (streaks.get(connectorId)?.until ?? 0) > now,
    /** The connectors held off at `now`. */
    heldOff: (now: number): ReadonlyArray<string> => {
      const held: Array<string> = []
      for (const [id, streak] of streaks) {
        if (streak.until > now) held.push(id)
        else if (Math.max(streak.at, streak.until) + maxMillis <= now) streaks.delete(id)
      }
      return held
    },
    /** The connectors whose streak is remembered. */
    remembered: (): number => streaks.size
  }
}
