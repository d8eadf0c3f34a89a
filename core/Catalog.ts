import { Layer } from "effect"
import { ModifiersLive } from "./modifiers/Modifiers.js"
import { BrandsLive } from "./catalog/Brands.js"
import { CategoriesLive } from "./catalog/Categories.js"
import { ProductsLive } from "./products/Products.js"
import { ContentPagesLive } from "./content/ContentPages.js"
import { VariantsLive } from "./variants/Variants.js"
import { RelationshipsLive } from "./relationships/Relationships.js"
import { ProductModifiersLive } from "./modifiers/ProductModifiers.js"
import { MediaLibraryLive } from "./media/MediaLibrary.js"
import { AttributeGroupsLive } from "./schema/AttributeGroups.js"
import { AttributesLive } from "./schema/Attributes.js"
import { FamiliesLive } from "./schema/Families.js"
import { ConnectorsLive } from "./connectors/Connectors.js"
import { AuditLogLive } from "./events/AuditLog.js"
import { ApiKeysLive } from "./tenancy/ApiKeys.js"
import { AuthenticationLive } from "./tenancy/Authentication.js"
import { OrganizationsLive } from "./tenancy/Organizations.js"

/**
 * Every use case of the catalog, built on the ports: storage repositories, the event log,
 * the unit of work, crypto, the session verifier, the blob store, the catalog settings and
 * the webhook sender.
 */
export const services = Layer.mergeAll(
  OrganizationsLive,
  ApiKeysLive,
  ModifiersLive,
  AttributeGroupsLive,
  AttributesLive,
  FamiliesLive,
  AuditLogLive,
  ConnectorsLive,
  ContentPagesLive,
  VariantsLive,
  RelationshipsLive,
  ProductModifiersLive,
  MediaLibraryLive
).pipe(
  Layer.provideMerge(AuthenticationLive)
).pipe(
  // Categories and brands validate their values through the schema's provisioned families.
  (schema) => Layer.mergeAll(CategoriesLive, BrandsLive, ProductsLive).pipe(Layer.provideMerge(schema))
)
