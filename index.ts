/**
 * The catalog as a library: build its use cases from a storage layer and call them directly,
 * with no HTTP.
 *
 *   const catalog = catalogLayer({ storage: SqliteStorage.layer("./catalog.db"), webhooks: MemoryWebhookSender.layer() })
 *
 * `DispatcherLive()` delivers webhooks in the background for as long as its scope lives.
 *   const org = await Effect.runPromise(
 *     Effect.flatMap(Organizations, (o) => o.create({ name: "Shop", slug: "shop" }, { _tag: "Service" }))
 *       .pipe(Effect.provide(catalog)))
 */
import { Layer, Option, type Redacted } from "effect"
import * as JwtSessionVerifier from "./adapters/auth/JwtSessionVerifier.js"
import * as MemoryBlobStore from "./adapters/blobs/MemoryBlobStore.js"
import * as NodeCrypto from "./adapters/crypto/NodeCrypto.js"
import * as VmPatternTimer from "./adapters/patterns/VmPatternTimer.js"
import type { Storage } from "./adapters/sql/SqlStorage.js"
import * as Catalog from "./core/Catalog.js"
import type { BlobStore } from "./core/shared/BlobStore.js"
import { CatalogSettings } from "./core/shared/CatalogSettings.js"
import type { WebhookSender } from "./core/webhooks/WebhookSender.js"

export interface CatalogOptions<A, E, R> {
  /** `SqliteStorage.layer(...)` or `PostgresStorage.layer(...)`. */
  readonly storage: Layer.Layer<A | Storage, E, R>
  /** Where media and tenant exports go; in memory unless given (`FileBlobStore.layer(dir)`). */
  readonly blobs?: Layer.Layer<BlobStore>
  /** HS256 secret of admin session tokens; sessions are refused without one. */
  readonly sessionSecret?: Redacted.Redacted
  /** Where webhooks go: `HttpWebhookSender.layer(...)`, or `MemoryWebhookSender.layer()` to record them. */
  readonly webhooks: Layer.Layer<WebhookSender>
  readonly tenancy?: "single" | "multi"
  readonly contentPagesEntitled?: boolean
}

/** Every use case of the catalog over the given adapters. */
export const catalogLayer = <A, E, R>(options: CatalogOptions<A, E, R>) =>
  Catalog.services.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        options.storage,
        NodeCrypto.layer,
        VmPatternTimer.layer,
        options.blobs ?? MemoryBlobStore.layer,
        JwtSessionVerifier.layer(Option.fromNullable(options.sessionSecret)),
        Layer.succeed(CatalogSettings, {
          tenancy: options.tenancy ?? "multi",
          contentPagesEntitled: options.contentPagesEntitled ?? true
        }),
        options.webhooks
      )
    )
  )

export * as FileBlobStore from "./adapters/blobs/FileBlobStore.js"
export * as HttpWebhookSender from "./adapters/webhooks/HttpWebhookSender.js"
export * as MemoryWebhookSender from "./adapters/webhooks/MemoryWebhookSender.js"
export { DispatcherLive, type DispatcherOptions } from "./core/webhooks/Dispatcher.js"
export * as PostgresStorage from "./adapters/postgres/PostgresStorage.js"
export * as SqliteStorage from "./adapters/sqlite/SqliteStorage.js"
export { CatalogEvent } from "./core/events/Event.js"
export { decodeInput } from "./core/shared/UntrustedInput.js"
export {
  Conflict,
  Forbidden,
  NotFound,
  OrganizationGone,
  StorageUnavailable,
  TooLarge,
  Unauthenticated,
  ValidationFailed
} from "./core/shared/Errors.js"
export { DatabaseTooNew, MigrationsNotRecorded } from "./adapters/sql/Migrate.js"
// What both storage layers provide and why they fail to build: the type of a storage chosen at run time.
export type { MigrationFailure, Storage } from "./adapters/sql/SqlStorage.js"
export { CurrentTenant } from "./core/tenancy/Actor.js"
export { ApiKeys } from "./core/tenancy/ApiKeys.js"
export { Authentication } from "./core/tenancy/Authentication.js"
export { Organizations } from "./core/tenancy/Organizations.js"
export { AttributeGroups } from "./core/schema/AttributeGroups.js"
export { Attributes } from "./core/schema/Attributes.js"
export { Families } from "./core/schema/Families.js"
export { Products } from "./core/products/Products.js"
export { Variants } from "./core/variants/Variants.js"
export { Categories } from "./core/catalog/Categories.js"
export { Brands } from "./core/catalog/Brands.js"
export { ContentPages } from "./core/content/ContentPages.js"
export { MediaLibrary } from "./core/media/MediaLibrary.js"
export { Modifiers } from "./core/modifiers/Modifiers.js"
export { ProductModifiers } from "./core/modifiers/ProductModifiers.js"
export { Relationships } from "./core/relationships/Relationships.js"
export { Connectors } from "./core/connectors/Connectors.js"
export { AuditLog } from "./core/events/AuditLog.js"
export { MemoryBlobStore, NodeCrypto }

// The inputs of the use cases, as the HTTP host decodes them (see `decodeInput`).
export { CreateApiKey, RenameApiKey } from "./core/tenancy/ApiKey.js"
export { AmbiguousBootstrapOrganization, CreateOrganization, UpdateOrganization } from "./core/tenancy/Organization.js"
export { CreateAttribute, CreateAttributeGroup, UpdateAttribute } from "./core/schema/Attribute.js"
export { AttachAttribute, CreateFamily, UpdateAttachment, UpdateFamily } from "./core/schema/Family.js"
export { CreateProduct, UpdateProduct } from "./core/products/Product.js"
export { FacetsQuery, ListProductsQuery } from "./core/products/ProductQuery.js"
export { CreateVariant, UpdateVariant } from "./core/variants/Variant.js"
export { CreateCategory, ListCategoriesQuery, UpdateCategory } from "./core/catalog/Category.js"
export { CreateBrand, ListBrandsQuery, UpdateBrand } from "./core/catalog/Brand.js"
export { CreateContentPage, UpdateContentPage } from "./core/content/ContentPage.js"
export { MAX_MEDIA_BYTES, UpdateMedia } from "./core/media/Media.js"
export { CreateModifier, UpdateModifier } from "./core/modifiers/Modifier.js"
export { AttachModifier } from "./core/modifiers/ProductModifier.js"
export { CreateRelationship } from "./core/relationships/Relationship.js"
export { InstallConnector, UpdateConnector } from "./core/connectors/Connector.js"

// What the use cases answer, and the other types they take, to name in an app's own code.
export type { Actor, Role } from "./core/tenancy/Actor.js"
export type { Principal } from "./core/tenancy/Principal.js"
export type { ResolvedTenant } from "./core/tenancy/Authentication.js"
export type { ApiKey, CreatedApiKey } from "./core/tenancy/ApiKey.js"
export type { Organization, OrganizationDeleted, OrganizationDetails } from "./core/tenancy/Organization.js"
export type { Attribute, AttributeGroup, AttributeUsage, EntityKind } from "./core/schema/Attribute.js"
export type { Family, FamilyAttachment, FamilyAttributeEntry, FamilyDetails } from "./core/schema/Family.js"
export type { ProvisionedKind } from "./core/schema/Families.js"
export type { FamilyAttribute, FamilySchema } from "./core/schema/FamilyRepository.js"
export type { Product, ProductDetails, ProductJson, ProductListItem } from "./core/products/Product.js"
export type { ProductFacets, ProductList, ProductListJson } from "./core/products/ProductResults.js"
export type { BulkError, BulkResult } from "./core/products/ProductBulk.js"
export type { Variant, VariantList } from "./core/variants/Variant.js"
export type { Category } from "./core/catalog/Category.js"
export type { Brand } from "./core/catalog/Brand.js"
export type { ContentPage, ContentPageFilter, ContentPageList } from "./core/content/ContentPage.js"
export type { Media, MediaList, UploadedMedia, UploadPart } from "./core/media/Media.js"
export type { Modifier } from "./core/modifiers/Modifier.js"
export type { ProductModifier } from "./core/modifiers/ProductModifier.js"
export type { ProductRelationship, RelationshipPage } from "./core/relationships/Relationship.js"
export type { Connector, Delivery, DeliveryPage } from "./core/connectors/Connector.js"
export type { AuditEntry, AuditFilter, AuditPage } from "./core/events/AuditEntry.js"
