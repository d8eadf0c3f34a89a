import { Array as Arr, Cause, Duration, Effect, Layer, Option, Schedule } from "effect"
import { DELIVERY_LOG_SIZE } from "../connectors/Connector.js"
import { ConnectorRepository } from "../connectors/ConnectorRepository.js"
import { Outbox, type QueuedDelivery } from "../events/Outbox.js"
import { OutboxSignal } from "../events/OutboxSignal.js"
import { subscribed } from "../events/Subscription.js"
import { Crypto } from "../shared/Crypto.js"
import { toTimestamp } from "../shared/Fields.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { attempt } from "./Deliver.js"
import { makeFailureStreak } from "./FailureStreak.js"
import { makeHoldOff } from "./HoldOff.js"
import { WebhookSender } from "./WebhookSender.js"

export interface DispatcherOptions {
  /** How often to look for events committed by other processes (this one wakes the dispatcher itself). */
  readonly pollInterval?: Duration.DurationInput
  /** How long a claim holds before another dispatcher may take the events over. */
  readonly lease?: Duration.DurationInput
  readonly batchSize?: number
  /** Connectors served at once; each connector's events go out one after the other. */
  readonly concurrency?: number
  /** The longest wait between attempts while events cannot be claimed (the first is `pollInterval`); 30 s by default. */
  readonly maxRetryWait?: Duration.DurationInput
  /** How long a connector whose receiver stopped answering is first left alone (see `makeHoldOff`); 30 s by default. */
  readonly holdOff?: Duration.DurationInput
  /** The longest such wait; 5 minutes by default. */
  readonly maxHoldOff?: Duration.DurationInput
  /**
   * How long a fiber serves one connector before the rest of its claim goes back and the next
   * claim passes it over, so that slow receivers take turns with the others; 30 s by default.
   */
  readonly slice?: Duration.DurationInput
}

/**
 * Delivers committed events to the connectors that subscribe to them, oldest first per
 * connector, each event once per connector. Runs until interrupted; an event being
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
    const holdOff = makeHoldOff(options.holdOff ?? Duration.seconds(30), options.maxHoldOff ?? Duration.minutes(5))
    const sliceMillis = Duration.toMillis(options.slice ?? Duration.seconds(30))
    // Connectors whose slice ran out, passed over by the next claim: the others' turn.
    let yielded = new Set<string>()
    // Connectors claimed and not yet served to the end. A claim takes no more connectors than
    // there are fibers left for them: the others stay free for another process to serve.
    let serving = 0
    const currentMillis = Effect.clockWith((c) => c.currentTimeMillis)

    const leaseUntil = Effect.map(Effect.clockWith((c) => c.currentTimeMillis), (now) => ({
      now: toTimestamp(now),
      until: toTimestamp(now + leaseMillis)
    }))

    const dispatchConnector = (connectorId: string, queued: ReadonlyArray<QueuedDelivery>) =>
      Effect.gen(function*() {
        const organizationId = queued[0]?.event.organizationId
        if (organizationId === undefined) return
        // A claim under way when the hold-off began did not pass the connector over.
        if (holdOff.holds(connectorId, yield* currentMillis)) return yield* uow.system(outbox.giveBack(holder, connectorId))
        const read = uow.system(connectors.findById(organizationId, connectorId))
        const started = yield* currentMillis
        // Read again after each event sent, which may have taken seconds: the next goes only
        // to a connector still installed and subscribed to it.
        let installed = yield* read
        // Events it no longer subscribes to are taken off together: one write for the run of
        // them, not one durable commit per event.
        let skipped: Array<number> = []
        const flush = Effect.suspend(() => {
          const ids = skipped
          skipped = []
          return ids.length === 0 ? Effect.succeed(true) : uow.system(outbox.complete(holder, ids))
        })
        for (const [i, { event, id }] of queued.entries()) {
          // Deleted: its queue went with it, but for what a write that read it before then queued after.
          if (Option.isNone(installed)) {
            skipped.push(...queued.slice(i).map((q) => q.id))
            break
          }
          const connector = installed.value
          if (!subscribed(connector.events, event.name)) {
            skipped.push(id)
            continue
          }
          if (!(yield* flush)) return
          // Once sent, an event is logged and taken off the queue before anything may stop us.
          const { answered, stillOurs } = yield* Effect.uninterruptible(
            Effect.gen(function*() {
              const { answered, delivery } = yield* attempt(connector, event).pipe(
                Effect.provideService(Crypto, crypto),
                Effect.provideService(WebhookSender, sender)
              )
              const stillOurs = yield* uow.system(
                Effect.zipRight(
                  connectors.recordDelivery(organizationId, connectorId, delivery, DELIVERY_LOG_SIZE),
                  outbox.complete(holder, [id])
                )
              )
              return { answered, stillOurs }
            })
          )
          // Another dispatcher took the connector over after our lease ran out.
          if (!stillOurs) return
          if (holdOff.attempted(connectorId, answered, yield* currentMillis)) {
            // The rest waits in the queue, for this process once the hold-off ends, or for another.
            return yield* uow.system(outbox.giveBack(holder, connectorId))
          }
          if (i < queued.length - 1 && (yield* currentMillis) - started >= sliceMillis) {
            yielded.add(connectorId)
            return yield* uow.system(outbox.giveBack(holder, connectorId))
          }
          installed = yield* read
        }
        yield* flush
      })

    // Claims are renewed well before they run out, so no other dispatcher takes over a
    // connector this live process is still serving.
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

    // Each claimed connector is served on a fiber of its own, so a slow receiver holds up only
    // its own deliveries: the next claim does not wait for it, and skips it while its claim
    // lives. A claim is made only when a fiber is free, and a fiber that finishes wakes the loop.
    return yield* Effect.gen(function*() {
      const fibers = yield* Effect.makeSemaphore(concurrency)
      yield* Effect.forkScoped(heartbeat)
      // A connector that failed is given back after a pause: the heartbeat would otherwise
      // keep its claims alive for as long as this process runs.
      const giveBack = (connectorId: string) =>
        Effect.sleep(pollInterval).pipe(
          Effect.zipRight(uow.system(outbox.giveBack(holder, connectorId))),
          Effect.catchAllDefect(Effect.fail),
          Effect.retry(Schedule.spaced(pollInterval).pipe(Schedule.intersect(Schedule.recurs(5)))),
          Effect.ignoreLogged
        )
      const serve = (connectorId: string, queued: ReadonlyArray<QueuedDelivery>) =>
        fibers.withPermits(1)(dispatchConnector(connectorId, queued)).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logError("webhook dispatcher failed; retrying", cause).pipe(Effect.zipRight(giveBack(connectorId)))
          ),
          Effect.ensuring(Effect.zipRight(Effect.sync(() => serving--), signal.wake))
        )
      const claimed = fibers.withPermits(1)(
        Effect.flatMap(
          Effect.zip(leaseUntil, currentMillis),
          ([{ now, until }, millis]) => {
            // Every fiber has a connector waiting for it: one that finishes wakes the loop.
            if (serving >= concurrency) return Effect.succeed([])
            const passedOver = [...holdOff.heldOff(millis), ...yielded]
            yielded = new Set()
            return uow.system(outbox.claim(holder, now, until, batchSize, passedOver, concurrency - serving))
          }
        )
      )
      // While claims fail (the database is down), the wait between attempts doubles.
      const step = Effect.gen(function*() {
        const queued = yield* claimed
        yield* claiming.succeeded
        if (queued.length === 0) return yield* signal.sleep(pollInterval)
        for (const [id, ofConnector] of Object.entries(Arr.groupBy(queued, (q) => q.connectorId))) {
          serving++
          yield* Effect.forkScoped(serve(id, ofConnector))
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
