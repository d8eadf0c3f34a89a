import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { Brand, CreateBrand, ListBrandsQuery, UpdateBrand } from "../../../core/catalog/Brand.js"
import { Category, CreateCategory, ListCategoriesQuery, UpdateCategory } from "../../../core/catalog/Category.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

export class CategoriesApi extends HttpApiGroup.make("categories")
  .add(HttpApiEndpoint.get("list", "/v1/categories").setUrlParams(ListCategoriesQuery).addSuccess(Schema.Array(Category)))
  .add(HttpApiEndpoint.post("create", "/v1/categories").setPayload(everyIssue(CreateCategory)).addSuccess(Category, { status: 201 }).addError(ConflictWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/categories/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Category).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/categories/:id").setPath(IdPath).setPayload(everyIssue(UpdateCategory)).addSuccess(Category).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("delete", "/v1/categories/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(ConflictWire).addError(NotFoundWire))
  .middleware(TenantAuth)
{}

export class BrandsApi extends HttpApiGroup.make("brands")
  .add(HttpApiEndpoint.get("list", "/v1/brands").setUrlParams(ListBrandsQuery).addSuccess(Schema.Array(Brand)))
  .add(HttpApiEndpoint.post("create", "/v1/brands").setPayload(everyIssue(CreateBrand)).addSuccess(Brand, { status: 201 }).addError(ConflictWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/brands/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Brand).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/brands/:id").setPath(IdPath).setPayload(everyIssue(UpdateBrand)).addSuccess(Brand).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("delete", "/v1/brands/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
