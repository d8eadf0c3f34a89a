import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, ManagedRuntime, Redacted } from "effect"

type Sql = SqlClient.SqlClient

/** A connection of the database's owner, apart from the service's pool, as another process has one. */
export interface OwnerConnection {
  /**
   * Begins a transaction and runs `take` in it (a lock, say); answers once that has run. The
   * transaction then waits until the answered function is called, runs `then`, commits, and
   * that call answers what `then` answered.
   */
  readonly hold: <A = void>(
    take: (sql: Sql) => Effect.Effect<unknown, unknown>,
    then?: (sql: Sql) => Effect.Effect<A, unknown>
  ) => Promise<() => Promise<A>>
  readonly close: () => Promise<void>
}

export const ownerConnection = (url: string): OwnerConnection => {
  const runtime = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  const hold = async <A = void>(
    take: (sql: Sql) => Effect.Effect<unknown, unknown>,
    then: (sql: Sql) => Effect.Effect<A, unknown> = () => Effect.void as Effect.Effect<A>
  ) => {
    const taken = await runtime.runPromise(Deferred.make<void>())
    const release = await runtime.runPromise(Deferred.make<void>())
    const done = runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql.withTransaction(take(sql).pipe(
        Effect.zipRight(Deferred.succeed(taken, undefined)),
        Effect.zipRight(Deferred.await(release)),
        Effect.zipRight(then(sql))
      ))))
    await runtime.runPromise(Deferred.await(taken))
    return async () => {
      await runtime.runPromise(Deferred.succeed(release, undefined))
      return done
    }
  }
  return { hold, close: () => runtime.dispose() }
}
