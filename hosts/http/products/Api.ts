import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CreateProduct, ScopeQueryFields, Product, ProductDetails, UpdateProduct } from "../../../core/products/Product.js"
import { BulkRequest } from "../../../core/products/ProductBulk.js"
import { FacetsQuery, ListProductsQuery } from "../../../core/products/ProductQuery.js"
import { ProductFacets, ProductList } from "../../../core/products/ProductResults.js"
import { Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { ConflictWire, Envelope, NotFoundWire } from "../Errors.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { ClosedQuery } from "../ClosedQuery.js"

/** One bulk item's outcome; a failure carries the error object of the envelope. */
const BulkResultWire = Schema.Union(
  Schema.Struct({ ok: Schema.Literal(true), index: Schema.Int, id: Uuid }),
  Schema.Struct({ ok: Schema.Literal(false), index: Schema.Int, error: Envelope.fields.error })
)

const BulkResponse = Schema.Struct({ results: Schema.Array(BulkResultWire) })

export class ProductsApi extends HttpApiGroup.make("products")
  .add(HttpApiEndpoint.get("list", "/v1/products").setUrlParams(ListProductsQuery).addSuccess(ProductList))
  .add(HttpApiEndpoint.post("create", "/v1/products").setPayload(everyIssue(CreateProduct)).addSuccess(Product, { status: 201 }).addError(ConflictWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("facets", "/v1/products/facets").setUrlParams(FacetsQuery).addSuccess(ProductFacets))
  .add(HttpApiEndpoint.post("bulk", "/v1/products/bulk").setPayload(everyIssue(BulkRequest)).addSuccess(BulkResponse))
  .add(HttpApiEndpoint.get("get", "/v1/products/:id").setPath(IdPath).setUrlParams(ClosedQuery(ScopeQueryFields)).addSuccess(ProductDetails).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/products/:id").setPath(IdPath).setPayload(everyIssue(UpdateProduct)).addSuccess(Product).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("delete", "/v1/products/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
