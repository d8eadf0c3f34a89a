import { Context, type Effect } from "effect"

/**
 * Transactions. Every write and the event it emits run inside one of these, so they commit
 * together or not at all. Nested calls join the outer transaction.
 */
export class UnitOfWork extends Context.Tag("catalog/UnitOfWork")<UnitOfWork, {
  /**
   * Runs `effect` in one transaction in which only `organizationId`'s rows are visible.
   * On Postgres this is enforced by row-level security, not only by the queries' filters.
   */
  readonly tenant: <A, E, R>(organizationId: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs a read that needs no consistency beyond each statement's own (a single statement,
   * typically) in `organizationId`'s scope. Where the tenant is enforced by the database
   * (Postgres) this is still a transaction; elsewhere the statements run on their own.
   */
  readonly read: <A, E, R>(organizationId: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs reads that must agree with each other (a page and its total) in one transaction of
   * `organizationId` that writes nothing: on SQLite it takes no write lock, so it never waits
   * for another process's writer.
   */
  readonly snapshot: <A, E, R>(organizationId: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs `effect` in one transaction that sees every organization: provisioning, resolving
   * credentials, deleting a tenant, the outbox.
   */
  readonly system: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Holds the records of `kind` with these ids against every other writer until the
   * transaction ends. A write that reads a record to change it (a merge, a list of changed
   * fields) takes this first, so no concurrent write is lost. Take every record a
   * transaction changes in one call: they are held in one global order, so two writers
   * never wait on each other in a cycle.
   */
  readonly lock: (kind: string, ids: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * Holds the records of `kind` with these ids against `lock` (not against other `share`s)
   * until the transaction ends: many transactions may share them, and one that locks them
   * waits for every sharer before it, and holds off every sharer after it, until it ends.
   */
  readonly share: (kind: string, ids: ReadonlyArray<string>) => Effect.Effect<void>
}>() {}
