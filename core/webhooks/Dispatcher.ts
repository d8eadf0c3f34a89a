import { Array as Arr, Cause, Duration, Effect, Layer, Schedule } from "effect"
import { DELIVERY_LOG_SIZE } from "../connectors/Connector.js"
import { ConnectorRepository } from "../connectors/ConnectorRepository.js"
import type { CatalogEvent } from "../events/Event.js"
import { Outbox } from "../events/Outbox.js"
import { OutboxSignal } from "../events/OutboxSignal.js"
import { subscribed } from "../events/Subscription.js"
import { Crypto } from "../shared/Crypto.js"
import { toTimestamp } from "../shared/Fields.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { deliver } from "./Deliver.js"
import { makeFailureStreak } from "./FailureStreak.js"
import { WebhookSender } from "./WebhookSender.js"

export interface DispatcherOptions {
  /** How often to look for events committed by other processes (this one wakes the dispatcher itself). */
  readonly pollInterval?: Duration.DurationInput
  /** How long a claim holds before another dispatcher may take the events over. */
  readonly lease?: Duration.DurationInput
  readonly batchSize?: number
  /** Organizations served at once; each organization's events go out one after the other. */
  readonly concurrency?: number
  /** The longest wait between attempts while events cannot be claimed (the first is `pollInterval`); 30 s by default. */
  readonly maxRetryWait?: Duration.DurationInput
}

/**
 * Delivers committed events to the connectors that subscribe to them, oldest first per
 * organization, each event once per connector. Runs until interrupted; an event being
 * delivered when that happens is finished first, and unfinished claims are given back.
 */
export const runDispatcher = (options: DispatcherOptions = {}) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const connectors = yield* ConnectorRepository
    const uow = yield* UnitOfWork
    const signal = yield* OutboxSignal
    const crypto = yield* Crypto
    const sender = yield* WebhookSender
    const pollInterval = options.pollInterval ?? Duration.seconds(1)
    const leaseMillis = Duration.toMillis(options.lease ?? Duration.seconds(30))
    const batchSize = options.batchSize ?? 500
    const concurrency = options.concurrency ?? 8
    const holder = yield* crypto.uuid

    const leaseUntil = Effect.map(Effect.clockWith((c) => c.currentTimeMillis), (now) => ({
      now: toTimestamp(now),
      until: toTimestamp(now + leaseMillis)
    }))

    const sendAll = (event: CatalogEvent, targets: ReadonlyArray<Parameters<typeof deliver>[0]>) =>
      Effect.forEach(targets, (connector) => Effect.map(deliver(connector, event), (attempt) => ({ connector, attempt })), {
        concurrency: "unbounded"
      }).pipe(Effect.provideService(Crypto, crypto), Effect.provideService(WebhookSender, sender))

    const dispatchOrganization = (organizationId: string, events: ReadonlyArray<CatalogEvent>) =>
      Effect.gen(function*() {
        const read = uow.system(connectors.list(organizationId))
        // Read again after each event sent, which may have taken seconds: the next goes to the
        // connectors installed and subscribed then, not to one deleted or unsubscribed meanwhile.
        let installed = yield* read
        // Events nobody subscribes to are marked together: one write for the run of them,
        // not one durable commit per event.
        let unsubscribed: Array<string> = []
        const flush = Effect.suspend(() => {
          const ids = unsubscribed
          unsubscribed = []
          return ids.length === 0 ? Effect.succeed(true) : uow.system(outbox.complete(holder, ids))
        })
        for (const event of events) {
          const targets = installed.filter((c) => subscribed(c.events, event.name))
          if (targets.length === 0) {
            unsubscribed.push(event.id)
            continue
          }
          if (!(yield* flush)) return
          // Once sent, an event is logged and marked before anything may stop us.
          const stillOurs = yield* Effect.uninterruptible(
            Effect.gen(function*() {
              const attempts = yield* sendAll(event, targets)
              return yield* uow.system(
                Effect.gen(function*() {
                  for (const { attempt, connector } of attempts) {
                    yield* connectors.recordDelivery(organizationId, connector.id, attempt, DELIVERY_LOG_SIZE)
                  }
                  return yield* outbox.complete(holder, [event.id])
                })
              )
            })
          )
          // Another dispatcher took the organization over after our lease ran out.
          if (!stillOurs) return
          installed = yield* read
        }
        yield* flush
      })

    // Claims are renewed well before they run out, so no other dispatcher takes over an
    // organization this live process is still serving.
    const renewEvery = Duration.millis(leaseMillis / 3)
    const renewing = yield* makeFailureStreak("renewing webhook event claims", renewEvery, renewEvery)
    const heartbeat = Effect.sleep(renewEvery).pipe(
      Effect.zipRight(Effect.flatMap(leaseUntil, ({ until }) => uow.system(outbox.renew(holder, until)))),
      Effect.zipRight(renewing.succeeded),
      Effect.catchAllCause(renewing.failed),
      Effect.forever
    )
    const claiming = yield* makeFailureStreak(
      "claiming webhook events",
      pollInterval,
      options.maxRetryWait ?? Duration.seconds(30)
    )

    // Each claimed organization is served on a fiber of its own, so a slow receiver holds up
    // only its organization: the next claim does not wait for it, and skips it while its claim
    // lives. A claim is made only when a fiber is free, and a fiber that finishes wakes the loop.
    return yield* Effect.gen(function*() {
      const fibers = yield* Effect.makeSemaphore(concurrency)
      yield* Effect.forkScoped(heartbeat)
      // An organization that failed is given back after a pause: the heartbeat would otherwise
      // keep its claims alive for as long as this process runs.
      const giveBack = (events: ReadonlyArray<CatalogEvent>) =>
        Effect.sleep(pollInterval).pipe(
          Effect.zipRight(uow.system(outbox.giveBack(holder, events.map((e) => e.id)))),
          Effect.catchAllDefect(Effect.fail),
          Effect.retry(Schedule.spaced(pollInterval).pipe(Schedule.intersect(Schedule.recurs(5)))),
          Effect.ignoreLogged
        )
      const serve = (organizationId: string, events: ReadonlyArray<CatalogEvent>) =>
        fibers.withPermits(1)(dispatchOrganization(organizationId, events)).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logError("webhook dispatcher failed; retrying", cause).pipe(Effect.zipRight(giveBack(events)))
          ),
          Effect.ensuring(signal.wake)
        )
      const claimed = fibers.withPermits(1)(Effect.flatMap(leaseUntil, ({ now, until }) => uow.system(outbox.claim(holder, now, until, batchSize))))
      // While claims fail (the database is down), the wait between attempts doubles.
      const step = Effect.gen(function*() {
        const events = yield* claimed
        yield* claiming.succeeded
        if (events.length === 0) return yield* signal.sleep(pollInterval)
        for (const [id, ofOrganization] of Object.entries(Arr.groupBy(events, (e) => e.organizationId))) {
          yield* Effect.forkScoped(serve(id, ofOrganization))
        }
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.flatMap(claiming.failed(cause), Effect.sleep)
        )
      )
      return yield* Effect.forever(step)
    }).pipe(
      Effect.scoped,
      Effect.ensuring(Effect.ignoreLogged(uow.system(outbox.release(holder))))
    )
  })

/** The dispatcher as a layer: it starts with the layer and stops when the layer's scope closes. */
export const DispatcherLive = (options: DispatcherOptions = {}) => Layer.scopedDiscard(Effect.forkScoped(runDispatcher(options)))
