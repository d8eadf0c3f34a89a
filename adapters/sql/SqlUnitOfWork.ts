import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Exit, FiberRef, identity, Layer, Option } from "effect"
import { appendedEvents, OutboxSignal } from "../../core/events/OutboxSignal.js"
import { OrganizationGone, StorageUnavailable } from "../../core/shared/Errors.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { atOneInstant } from "../../core/shared/WriteInstant.js"
import { APP_ROLE } from "./Rls.js"
import { isForeignKeyViolation, isLockedElsewhere, isWorthRunningAgain, unavailableReason, untilUnlocked } from "./SqlErrors.js"
import { isUuid } from "../../core/shared/Fields.js"

/**
 * What a tenant transaction sets, for the organization `organizationId` stands for: the tenant
 * for the policies, the application role (`set_config('role', ..., true)` is SET LOCAL ROLE),
 * and no parallel workers. A tenant's queries read little each: starting workers took longer
 * than they saved on every read the bench measures (a money range list 13 ms -> 4 ms without).
 */
const tenantSettings = (organizationId: string) =>
  `set_config('app.organization_id', ${organizationId}, true), set_config('role', '${APP_ROLE}', true), set_config('max_parallel_workers_per_gather', '0', true)`

const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) => Effect.catchTag(effect, "SqlError", Effect.die)

const sqlErrorsOf = (cause: Cause.Cause<unknown>) =>
  [...Cause.failures(cause), ...Cause.defects(cause)].filter((e): e is SqlError => e instanceof SqlError)

const worthRunningAgain = (cause: Cause.Cause<unknown>) => sqlErrorsOf(cause).some(isWorthRunningAgain)

// Another process holds the SQLite file's write lock: the transaction runs again until the
// lock is free (`untilUnlocked`), before the host answers 503.
const lockedElsewhere = (cause: Cause.Cause<unknown>) => sqlErrorsOf(cause).some(isLockedElsewhere)

/**
 * A run the database could not do (see `unavailableReason`) dies with StorageUnavailable,
 * which the host tells apart from a fault; the database's own error is logged here, where it
 * is known.
 */
const unreachableAsUnavailable = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(effect, (cause) => {
    const reason = sqlErrorsOf(cause).map(unavailableReason).find((r) => r !== undefined)
    return reason === undefined
      ? Effect.failCause(cause)
      : Effect.zipRight(Effect.logWarning(reason, cause), Effect.die(new StorageUnavailable({ message: reason })))
  })

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const signal = yield* OutboxSignal
  // Postgres: the tenant is a transaction-local setting and the transaction drops to the
  // application role, so row-level security decides what is visible. SQLite: one process,
  // no roles; the repositories' filters do the same work.
  const enterTenant = (organizationId: string) =>
    sql.onDialectOrElse({
      pg: () => sql.unsafe(`select ${tenantSettings("$1")}`, [organizationId]).pipe(Effect.asVoid),
      orElse: () => Effect.void
    })

  // The outermost transaction runs again, from the start, when it lost a race to another
  // (see `isWorthRunningAgain`): nothing of it was kept. After it commits with new events,
  // the dispatcher is woken: before the commit it could not see them. `outermost` is how the
  // transaction runs when no other encloses it; inside one, `nested` (a savepoint). `settle`
  // takes how the last run ended. Each run reads the clock once (`atOneInstant`): what it
  // writes and the events it appends carry one instant, taken again when it runs again.
  const asOutermost = <A, E, R>(
    nested: Effect.Effect<A, E, R>,
    outermost: Effect.Effect<A, E, R> = nested,
    settle: (ran: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> = identity
  ) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Option.isSome(outer) ? nested : Effect.locally(
        Effect.tap(
          settle(unreachableAsUnavailable(
            atOneInstant(outermost).pipe(
              Effect.sandbox,
              Effect.retry({ times: 3, while: worthRunningAgain }),
              Effect.retry({ schedule: untilUnlocked, while: lockedElsewhere }),
              Effect.unsandbox
            )
          )),
          () => Effect.flatMap(FiberRef.get(appendedEvents), (appended) => (appended ? signal.wake : Effect.void))
        ),
        appendedEvents,
        false
      ))

  const isPostgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

  /**
   * `effect` in a transaction this unit of work begins itself with `begin` (where the client's
   * own would say a bare BEGIN), on the connection it reserves. A begin or a commit that fails
   * is followed by a rollback, so the connection never goes back with the transaction open.
   */
  const ownTransaction = <A, E, R>(begin: string, effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.scoped(Effect.gen(function*() {
        const conn = yield* sql.reserve
        const rollback = Effect.ignore(conn.executeUnprepared("ROLLBACK", [], undefined))
        yield* conn.executeUnprepared(begin, [], undefined).pipe(Effect.tapErrorCause(() => rollback))
        const exit = yield* Effect.exit(restore(Effect.provideService(effect, SqlClient.TransactionConnection, [conn, 0])))
        yield* conn.executeUnprepared(Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK", [], undefined).pipe(
          Effect.tapErrorCause(() => rollback),
          Effect.orDie
        )
        return yield* exit
      }))
    )

  // Postgres, outermost: BEGIN and the tenant's settings in one round trip, not two (a read by
  // id takes three). Several statements go in one message only without parameters, so the
  // organization id is written into the text, once it is known to be a UUID. The same message
  // shares the organization's lock (`lock("organization", ...)`, the key `advisory` makes), which
  // the organization's deletion takes alone: it waits for the transactions in flight, so its
  // export has what they wrote (an update of an existing row waits on nothing else it holds), and
  // those that start during it wait and then find the organization gone.
  const postgresTenantTransaction = <A, E, R>(organizationId: string, effect: Effect.Effect<A, E, R>) =>
    isUuid(organizationId)
      ? ownTransaction(
        `BEGIN; SELECT ${tenantSettings(`'${organizationId}'`)}, pg_advisory_xact_lock_shared(hashtextextended('organization:${organizationId}', 0))`,
        effect
      )
      : Effect.dieMessage(`organization id ${JSON.stringify(organizationId)} is not a UUID`)

  // SQLite, outermost: the transaction takes the file's write lock when it begins. Begun
  // deferred, one that reads first (planning a bulk batch, exporting an organization) could not
  // write once another process had committed since its first read, and ran again until the
  // lock's 5 s were up while the other process kept committing: 503, though no one held the lock long.
  const sqliteTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => ownTransaction("BEGIN IMMEDIATE", effect)

  const system = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
    const nested = dieOnSqlError(sql.withTransaction(effect))
    return asOutermost(nested, isPostgres ? nested : dieOnSqlError(sqliteTransaction(effect))) as typeof effect
  }

  // A write into an organization deleted since its credentials were resolved fails on the
  // organization's foreign key, run after run; that is told apart from a fault by looking for
  // the organization. (A run again first lets checks that find a deleted record answer 404.)
  // Another fault keeps its own error: a transaction creating its organization finds none either.
  const organizationGone = (organizationId: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.catchAllCause(effect, (cause) =>
      [...Cause.defects(cause)].some((d) => d instanceof SqlError && isForeignKeyViolation(d))
        ? Effect.matchCauseEffect(system(Effect.orDie(sql`select 1 as found from organizations where id = ${organizationId}`)), {
          onFailure: () => Effect.failCause(cause),
          onSuccess: (rows) => (rows.length === 0 ? Effect.die(new OrganizationGone({ organizationId })) : Effect.failCause(cause))
        })
        : Effect.failCause(cause))

  const tenant = <A, E, R>(organizationId: string, effect: Effect.Effect<A, E, R>) => {
    const nested = dieOnSqlError(sql.withTransaction(Effect.zipRight(Effect.orDie(enterTenant(organizationId)), effect)))
    const outermost = dieOnSqlError(isPostgres ? postgresTenantTransaction(organizationId, effect) : sqliteTransaction(effect))
    return asOutermost(nested, outermost, organizationGone(organizationId)) as typeof effect
  }

  /** Transaction-scoped advisory locks, taken in the order of the sorted keys (unnest yields the array in order). */
  const advisory = (lockFunction: "pg_advisory_xact_lock" | "pg_advisory_xact_lock_shared", kind: string, ids: ReadonlyArray<string>) =>
    sql.onDialectOrElse({
      // A shared hash only makes two writers wait in turn.
      pg: () => {
        const keys = [...new Set(ids.map((id) => `${kind}:${id}`))].sort()
        return keys.length === 0 ? Effect.void : Effect.orDie(Effect.asVoid(
          sql`select ${sql.literal(lockFunction)}(hashtextextended(k, 0)) from unnest(${keys}::text[]) as k`
        ))
      },
      // One connection, and a transaction holds it until it ends: writers already take turns.
      orElse: () => Effect.void
    })

  return UnitOfWork.of({
    tenant,
    // SQLite: BEGIN/COMMIT would cost more than the read itself, and a statement never sees
    // another's uncommitted writes (one connection, held by a transaction until it ends).
    read: (organizationId, effect) => sql.onDialectOrElse({ pg: () => tenant(organizationId, effect), orElse: () => effect }),
    // SQLite: begun deferred, as a transaction that only reads never needs the write lock.
    snapshot: (organizationId, effect) =>
      isPostgres ? tenant(organizationId, effect) : asOutermost(dieOnSqlError(sql.withTransaction(effect))) as typeof effect,
    system,
    lock: (kind, ids) => advisory("pg_advisory_xact_lock", kind, ids),
    share: (kind, ids) => advisory("pg_advisory_xact_lock_shared", kind, ids)
  })
})

export const layer = Layer.effect(UnitOfWork, make)
