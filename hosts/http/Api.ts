import { HttpApi, OpenApi } from "@effect/platform"
import { UnavailableWire } from "./Errors.js"
import { AuditApi } from "./audit/Api.js"
import { ConnectorsApi } from "./connectors/Api.js"
import { ContentPagesApi } from "./content/Api.js"
import { VariantsApi } from "./variants/Api.js"
import { RelationshipsApi } from "./relationships/Api.js"
import { ProductModifiersApi } from "./productModifiers/Api.js"
import { MediaApi } from "./media/Api.js"
import { ModifiersApi } from "./modifiers/Api.js"
import { BrandsApi, CategoriesApi } from "./catalog/Api.js"
import { HealthApi } from "./health/Api.js"
import { documentOpenBodies } from "./OpenApiBodies.js"
import { withoutSchemaIds } from "./OpenApiIds.js"
import { documentEdgeRefusals } from "./OpenApiRefusals.js"
import { documentCredentials } from "./OpenApiSecurity.js"
import { INTERFACE_VERSION, SERVICE_NAME } from "./Release.js"
import { ProductsApi } from "./products/Api.js"
import { AttributeGroupsApi, AttributesApi, FamiliesApi } from "./schema/Api.js"
import { ApiKeysApi, CallerApi, OrganizationsApi } from "./tenancy/Api.js"

/**
 * The whole HTTP contract, declared once: it validates requests and generates /openapi.json,
 * which carries the version of the interface (the specification's), not the deployed one
 * that `GET /healthz` reports.
 */
const routes = HttpApi.make("catalog")
  .annotate(OpenApi.Title, SERVICE_NAME)
  .annotate(OpenApi.Version, INTERFACE_VERSION)
  .add(HealthApi)
  .add(CallerApi)
  .add(OrganizationsApi)
  .add(ApiKeysApi)
  .add(ModifiersApi)
  .add(AttributeGroupsApi)
  .add(AttributesApi)
  .add(FamiliesApi)
  .add(AuditApi)
  .add(ConnectorsApi)
  .add(CategoriesApi)
  .add(BrandsApi)
  .add(ProductsApi)
  .add(ContentPagesApi)
  .add(VariantsApi)
  .add(RelationshipsApi)
  .add(ProductModifiersApi)
  .add(MediaApi)
  // Any route may meet a database that does not answer; each route declares its own refusals.
  .addError(UnavailableWire)

/**
 * The OpenAPI document also says which credentials each route takes, read from the routes
 * themselves, the refusals the edge answers on any route, and that a body's unknown keys are
 * ignored; it names no schema by `$id`.
 */
export class CatalogApi extends routes.annotate(
  OpenApi.Transform,
  (spec) => withoutSchemaIds(documentOpenBodies(documentEdgeRefusals(documentCredentials(routes)(spec))))
) {}
