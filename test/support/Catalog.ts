import { Effect, type Layer, Redacted } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import * as MemoryWebhookSender from "../../adapters/webhooks/MemoryWebhookSender.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import type { WebhookSender } from "../../core/webhooks/WebhookSender.js"
import { Organizations } from "../../core/tenancy/Organizations.js"
import { catalogLayer } from "../../index.js"

export const SESSION_SECRET = "test-session-secret-test-session-secret"

/** The catalog's use cases over `storage`, with in-memory blobs and webhooks, as an embedding app builds them. */
export const catalogOver = <A, E, R>(
  storage: Layer.Layer<A | Storage, E, R>,
  webhooks: Layer.Layer<WebhookSender> = MemoryWebhookSender.layer()
) => catalogLayer({ storage, webhooks, sessionSecret: Redacted.make(SESSION_SECRET) })

/**
 * A new organization created by the service, and a CurrentTenant acting in it as an admin
 * user: each test uses its own, so tests sharing a database never see each other's rows.
 */
export const newTenant = Effect.gen(function*() {
  const organizations = yield* Organizations
  const crypto = yield* Crypto
  const slug = `t-${(yield* crypto.randomToken(6)).toLowerCase().replace(/[^a-z0-9]/g, "x")}`
  const organization = yield* organizations.create({ name: `Tenant ${slug}`, slug }, { _tag: "Service" })
  const userId = yield* crypto.uuid
  return {
    organization,
    tenant: CurrentTenant.of({ organizationId: organization.id, actor: { type: "user", id: userId }, role: "admin" })
  }
})
