import { HttpApiBuilder, HttpApiScalar, HttpMiddleware } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { join } from "node:path"
import * as FileBlobStore from "../../adapters/blobs/FileBlobStore.js"
import * as JwtSessionVerifier from "../../adapters/auth/JwtSessionVerifier.js"
import * as NodeCrypto from "../../adapters/crypto/NodeCrypto.js"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"
import * as SqliteStorage from "../../adapters/sqlite/SqliteStorage.js"
import * as HttpWebhookSender from "../../adapters/webhooks/HttpWebhookSender.js"
import * as Catalog from "../../core/Catalog.js"
import { CatalogSettings } from "../../core/shared/CatalogSettings.js"
import { ensureSingleTenant } from "../../core/tenancy/Bootstrap.js"
import { DispatcherLive } from "../../core/webhooks/Dispatcher.js"
import { CatalogApi } from "./Api.js"
import { AuditLive } from "./audit/Http.js"
import { CallerAuthLive, TenantAuthLive } from "./Authentication.js"
import { ConnectorsLive } from "./connectors/Http.js"
import { databaseKind, type HostConfig } from "./Config.js"
import { EdgeLive } from "./ErrorMapping.js"
import { HealthLive } from "./health/Http.js"
import { ApiKeysLive, CallerLive, OrganizationsLive } from "./tenancy/Http.js"

/** The storage the database URL names. */
export const storage = (url: string) => {
  const db = databaseKind(url)
  return db._tag === "sqlite" ? SqliteStorage.layer(db.filename) : PostgresStorage.layer(db.url)
}

/** The catalog's use cases over this deployment's adapters. */
export const catalog = (config: HostConfig) =>
  Catalog.services.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        storage(config.databaseUrl),
        NodeCrypto.layer,
        JwtSessionVerifier.layer(config.sessionSecret),
        FileBlobStore.layer(join(config.dataDir, "blobs")),
        Layer.succeed(CatalogSettings, { tenancy: config.tenancy, contentPagesEntitled: config.contentPagesEntitled }),
        HttpWebhookSender.layer({ allowedPrivateAddresses: config.webhookAllowedPrivateAddresses })
      )
    )
  )

/** Single-tenant deployments: the bootstrap organization, key and invite, ensured at every start. */
const bootstrap = (config: HostConfig) =>
  Layer.effectDiscard(
    config.tenancy === "multi" ? Effect.void : ensureSingleTenant({
      slug: config.bootstrapOrgSlug,
      apiKey: Option.map(config.bootstrapApiKey, Redacted.value),
      adminEmail: config.bootstrapAdminEmail
    }).pipe(
      Effect.tap(({ minted, organization }) =>
        Option.match(minted, {
          onNone: () => Effect.void,
          onSome: (key) =>
            Effect.logWarning(`created an API key for organization ${organization.slug}; it is shown only now: ${key}`)
        })
      ),
      Effect.orDie
    )
  )

const handlers = (config: HostConfig) =>
  Layer.mergeAll(HealthLive, CallerLive, OrganizationsLive, ApiKeysLive, AuditLive, ConnectorsLive).pipe(
    Layer.provide(Layer.mergeAll(TenantAuthLive, CallerAuthLive(config.serviceKey)))
  )

/** The HTTP application on whatever `HttpServer` is provided (a real port, or a test server). */
export const server = (config: HostConfig) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
    Layer.provide(EdgeLive),
    Layer.provide(HttpApiBuilder.api(CatalogApi).pipe(Layer.provide(handlers(config)))),
    Layer.provide(bootstrap(config)),
    // Webhooks go out in the background for as long as the server runs.
    Layer.provide(DispatcherLive()),
    Layer.provide(catalog(config)),
    HttpMiddleware.withTracerDisabledWhen(() => true)
  )
