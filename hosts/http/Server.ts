import { HttpApiBuilder, HttpApiScalar, type HttpApp, HttpMiddleware, HttpRouter } from "@effect/platform"
import { type ConfigError, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { join } from "node:path"
import * as FileBlobStore from "../../adapters/blobs/FileBlobStore.js"
import * as PostgresStorage from "../../adapters/postgres/PostgresStorage.js"
import * as SqliteStorage from "../../adapters/sqlite/SqliteStorage.js"
import type { MigrationFailure, Storage } from "../../adapters/sql/SqlStorage.js"
import * as HttpWebhookSender from "../../adapters/webhooks/HttpWebhookSender.js"
import { ensureSingleTenant } from "../../core/tenancy/Bootstrap.js"
import { DispatcherLive } from "../../core/webhooks/Dispatcher.js"
import { catalogLayer } from "../../index.js"
import { CatalogApi } from "./Api.js"
import { AuditLive } from "./audit/Http.js"
import { CallerAuthLive, TenantAuthLive } from "./Authentication.js"
import { ConnectorsLive } from "./connectors/Http.js"
import { ContentPagesAuthLive } from "./content/Auth.js"
import { OrganizationAdminLive } from "./tenancy/Auth.js"
import { ContentPagesLive } from "./content/Http.js"
import { VariantsLive } from "./variants/Http.js"
import { RelationshipsLive } from "./relationships/Http.js"
import { ProductModifiersLive } from "./productModifiers/Http.js"
import { MediaLive } from "./media/Http.js"
import { databaseKind, type HostConfig } from "./Config.js"
import { EdgeLive } from "./ErrorMapping.js"
import * as CatalogHttp from "./catalog/Http.js"
import { HealthLive } from "./health/Http.js"
import { ModifiersLive } from "./modifiers/Http.js"
import * as ProductsHttp from "./products/Http.js"
import * as SchemaHttp from "./schema/Http.js"
import { DOCS_PATH, OPENAPI_PATH, ROUTER_CONFIG } from "./KnownRoutes.js"
import { challengeUnauthenticated } from "./Challenge.js"
import { closeAfterUnreadBody } from "./UnreadBodies.js"
import { ApiKeysLive, CallerLive, OrganizationsLive } from "./tenancy/Http.js"

/** The storage the database URL names. */
export const storage = (url: string): Layer.Layer<Storage, MigrationFailure | PostgresStorage.ConnectTimeout | ConfigError.ConfigError> => {
  const db = databaseKind(url)
  return db._tag === "sqlite" ? SqliteStorage.layer(db.filename) : PostgresStorage.layer(db.url)
}

/** The catalog's use cases over this deployment's adapters. */
export const catalog = (config: HostConfig) =>
  catalogLayer({
    storage: storage(config.databaseUrl),
    blobs: FileBlobStore.layer(join(config.dataDir, "blobs")),
    ...(Option.isSome(config.sessionSecret) ? { sessionSecret: config.sessionSecret.value } : {}),
    tenancy: config.tenancy,
    contentPagesEntitled: config.contentPagesEntitled,
    webhooks: HttpWebhookSender.layer({ allowedPrivateAddresses: config.webhookAllowedPrivateAddresses })
  })

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
          // The key is shown only now: a quieter LOG_LEVEL must not swallow it.
          onSome: (key) =>
            Effect.logWarning(`created an API key for organization ${organization.slug}; it is shown only now: ${key}`).pipe(
              Logger.withMinimumLogLevel(LogLevel.Warning)
            )
        })
      ),
      Effect.orDie
    )
  )

/** The middlewares of the routes: credentials, the organization, the content-pages feature, the admin's right to delete. */
const guards = (config: HostConfig) => Layer.mergeAll(TenantAuthLive, CallerAuthLive(config.serviceKey), ContentPagesAuthLive, OrganizationAdminLive)

const handlers = (guarded: ReturnType<typeof guards>) =>
  Layer.mergeAll(
    HealthLive,
    CallerLive,
    OrganizationsLive,
    ApiKeysLive,
    ModifiersLive,
    SchemaHttp.AttributeGroupsLive,
    SchemaHttp.AttributesLive,
    SchemaHttp.FamiliesLive,
    AuditLive,
    ConnectorsLive,
    CatalogHttp.CategoriesLive,
    CatalogHttp.BrandsLive,
    ProductsHttp.ProductsLive,
    ContentPagesLive,
    VariantsLive,
    RelationshipsLive,
    ProductModifiersLive,
    MediaLive
  ).pipe(
    Layer.provide(guarded)
  )

/** The HTTP application on whatever `HttpServer` is provided (a real port, or a test server). */
export const server = (config: HostConfig, track?: (app: HttpApp.Default) => HttpApp.Default) => {
  const guarded = guards(config)
  return HttpApiBuilder.serve((app) => challengeUnauthenticated(closeAfterUnreadBody(track ? track(app) : app))).pipe(
    Layer.provide(HttpRouter.setRouterConfig(ROUTER_CONFIG)),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })),
    Layer.provide(HttpApiScalar.layer({ path: DOCS_PATH })),
    // The edge runs a route's middleware before it refuses the route's body (see EdgeLive).
    Layer.provide(EdgeLive.pipe(Layer.provide(guarded))),
    Layer.provide(HttpApiBuilder.api(CatalogApi).pipe(Layer.provide(handlers(guarded)))),
    Layer.provide(bootstrap(config)),
    // Webhooks go out in the background for as long as the server runs.
    Layer.provide(DispatcherLive()),
    Layer.provide(catalog(config)),
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(Layer.setTracerEnabled(false))
  )
}
