import { Effect } from "effect"

/**
 * One at a time per key. A key's semaphore lives while someone holds or waits for it, and is
 * dropped after: one per key ever used would grow with every organization counted.
 */
export const makeTurns = () => {
  const turns = new Map<string, { readonly semaphore: Effect.Semaphore; users: number }>()
  const take = (key: string) =>
    Effect.sync(() => {
      let turn = turns.get(key)
      if (turn === undefined) {
        turn = { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        turns.set(key, turn)
      }
      turn.users++
      return turn
    })
  const leave = (key: string, turn: { users: number }) =>
    Effect.sync(() => {
      if (--turn.users === 0) turns.delete(key)
    })
  return {
    inTurn: <A, E>(key: string, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.acquireUseRelease(take(key), (turn) => turn.semaphore.withPermits(1)(effect), (turn) => leave(key, turn)),
    /** The keys someone holds or waits for. */
    keys: (): ReadonlyArray<string> => [...turns.keys()]
  }
}
