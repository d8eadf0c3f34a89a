import { Effect, Layer, Option, Redacted } from "effect"
import * as JwtSessionVerifier from "../../adapters/auth/JwtSessionVerifier.js"
import * as MemoryBlobStore from "../../adapters/blobs/MemoryBlobStore.js"
import * as NodeCrypto from "../../adapters/crypto/NodeCrypto.js"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import * as MemoryWebhookSender from "../../adapters/webhooks/MemoryWebhookSender.js"
import * as Catalog from "../../core/Catalog.js"
import { CatalogSettings } from "../../core/shared/CatalogSettings.js"
import { Crypto } from "../../core/shared/Crypto.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import type { WebhookSender } from "../../core/webhooks/WebhookSender.js"
import { Organizations } from "../../core/tenancy/Organizations.js"

export const SESSION_SECRET = "test-session-secret-test-session-secret"

/** The catalog's use cases over `storage`, with in-memory blobs and webhooks: what an embedding app builds. */
export const catalogOver = <A, E, R>(
  storage: Layer.Layer<A | Storage, E, R>,
  webhooks: Layer.Layer<WebhookSender> = MemoryWebhookSender.layer()
) =>
  Catalog.services.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        storage,
        NodeCrypto.layer,
        MemoryBlobStore.layer,
        JwtSessionVerifier.layer(Option.some(Redacted.make(SESSION_SECRET))),
        Layer.succeed(CatalogSettings, { tenancy: "multi", contentPagesEntitled: true }),
        webhooks
      )
    )
  )

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
