import { Context, Effect, Layer } from "effect"
import { emit, EventLog, eventServices, makeEvent } from "../events/EventLog.js"
import { DEFAULT_SUBSCRIPTION } from "../events/Subscription.js"
import { Crypto } from "../shared/Crypto.js"
import { NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { deliver } from "../webhooks/Deliver.js"
import { WebhookSender } from "../webhooks/WebhookSender.js"
import {
  asCanonicalUrl,
  canonicalUrl,
  type Connector,
  type ConnectorRecord,
  type Delivery,
  DELIVERY_LOG_SIZE,
  type DeliveryPage,
  type InstallConnector,
  toConnector,
  type UpdateConnector
} from "./Connector.js"
import { ConnectorRepository } from "./ConnectorRepository.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { keepUnchanged } from "../shared/Unchangeable.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { withRecordIds } from "../shared/RecordIds.js"

/**
 * A subscription is a set: a pattern sent twice is kept once, in the order first sent (as tags
 * are), on install and on update alike, so a connector read back shows each pattern once.
 */
const distinct = (patterns: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(patterns)]

/** Headless connectors: installs that receive the organization's events as signed webhooks. */
export class Connectors extends Context.Tag("catalog/Connectors")<Connectors, {
  readonly list: Effect.Effect<ReadonlyArray<Connector>, never, CurrentTenant>
  /** Refuses destinations that are not public http(s) endpoints. */
  readonly install: (input: InstallConnector) => Effect.Effect<Connector, ValidationFailed, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Connector, NotFound, CurrentTenant>
  readonly update: (id: string, input: UpdateConnector) => Effect.Effect<Connector, NotFound | ValidationFailed, CurrentTenant>
  readonly remove: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
  readonly deliveries: (id: string, limit: number, offset: number) => Effect.Effect<DeliveryPage, NotFound, CurrentTenant>
  /** Sends a signed `webhook.test` to the connector now and answers the logged attempt. */
  readonly sendTest: (id: string) => Effect.Effect<Delivery, NotFound, CurrentTenant>
}>() {}

const makeConnectors = Effect.gen(function*() {
  const repo = yield* ConnectorRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog
  const sender = yield* WebhookSender
  const services = yield* eventServices

  const inTenant = tenantTransaction(uow)

  const find = (organizationId: string, id: string) => repo.findById(organizationId, id).pipe(orNotFound("connector", id))

  const list = Effect.map(inTenant(repo.list), (rows) => rows.map(toConnector))

  const install = (input: InstallConnector) =>
    Effect.gen(function*() {
      const destinationUrl = canonicalUrl(input.config.destination_url)
      yield* sender.checkDestination(destinationUrl).pipe(
        Effect.mapError((e) => ValidationFailed.one(["config", "destination_url"], e.reason, "destination_refused"))
      )
      const record = yield* inTenant((organizationId) =>
        Effect.gen(function*() {
          const at = yield* now
          const record: ConnectorRecord = {
            id: yield* crypto.uuid,
            organizationId,
            type: "headless",
            name: input.name,
            destinationUrl,
            secret: input.config.secret,
            events: distinct(input.config.events ?? DEFAULT_SUBSCRIPTION),
            extraHeaders: input.config.extra_headers ?? {},
            createdAt: at,
            updatedAt: at
          }
          yield* repo.insert(record)
          yield* services(emit({ name: "connector.created", entityType: "connector", entityId: record.id, payload: { type: "headless", name: record.name } }))
          return record
        })
      )
      return toConnector(record)
    })

  const get = (id: string) => inTenant((organizationId) => find(organizationId, id)).pipe(Effect.map(toConnector))

  const update = (id: string, input: UpdateConnector) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("connector", [id])
        const before = yield* find(organizationId, id)
        yield* keepUnchanged([
          ["type", input.type, before.type],
          // Compared as written canonically: connectors installed up to 0.40.0 keep the address as typed.
          [["config", "destination_url"], asCanonicalUrl(input.config?.destination_url), asCanonicalUrl(before.destinationUrl)],
          [["config", "extra_headers"], input.config?.extra_headers, before.extraHeaders]
        ], sameJson)
        const events = input.config?.events === undefined ? undefined : distinct(input.config.events)
        const changed: Array<string> = []
        if (input.name !== undefined && input.name !== before.name) changed.push("name")
        if (events !== undefined && !sameJson(events, before.events)) changed.push("config.events")
        yield* services(emit({ name: "connector.updated", entityType: "connector", entityId: id, payload: { changed_fields: changed } }))
        if (changed.length === 0) return toConnector(before)
        const after = yield* repo.update(organizationId, id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(events !== undefined ? { events } : {}),
          updatedAt: yield* now
        }).pipe(orNotFound("connector", id))
        return toConnector(after)
      })
    )

  const remove = (id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        // An update in flight, which may record its event without writing the row, comes first.
        yield* uow.lock("connector", [id])
        if (!(yield* repo.delete(organizationId, id))) return yield* new NotFound({ entity: "connector", id })
        yield* services(emit({ name: "connector.deleted", entityType: "connector", entityId: id, payload: {} }))
      })
    )

  const deliveries = (id: string, limit: number, offset: number) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* find(organizationId, id)
        const page = yield* repo.deliveries(organizationId, id, limit, offset)
        return { data: page.deliveries, limit, offset, hasMore: page.hasMore }
      })
    )

  const sendTest = (id: string) =>
    Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      const connector = yield* inTenant((organizationId) => find(organizationId, id))
      const event = yield* makeEvent(tenant.organizationId, tenant.actor, {
        name: "webhook.test",
        entityType: "connector",
        entityId: connector.id,
        payload: { connector_name: connector.name }
      }).pipe(Effect.provideService(Crypto, crypto))
      // Sent outside any transaction: a slow receiver must not hold a database connection.
      const attempt = yield* deliver(connector, event).pipe(
        Effect.provideService(Crypto, crypto),
        Effect.provideService(WebhookSender, sender)
      )
      // In the audit log as every event is, marked sent: the dispatcher must not send it again.
      yield* uow.tenant(
        tenant.organizationId,
        Effect.zipRight(repo.recordDelivery(tenant.organizationId, connector.id, attempt, DELIVERY_LOG_SIZE), events.appendSent([event]))
      )
      return attempt
    })

  return withRecordIds(Connectors.of({ list, install, get, update, remove, deliveries, sendTest }), { get: ["connector"], update: ["connector"], remove: ["connector"], deliveries: ["connector"], sendTest: ["connector"] })
})

export const ConnectorsLive = Layer.effect(Connectors, makeConnectors)
