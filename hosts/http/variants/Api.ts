import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { strict, Uuid } from "../../../core/shared/Fields.js"
import { CreateVariant, UpdateVariant, Variant, VariantList } from "../../../core/variants/Variant.js"
import { TenantAuth } from "../Authentication.js"
import { pageParams } from "../Paging.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const VariantPath = Schema.Struct({ id: Uuid, variantId: Uuid })
const VariantsQuery = Schema.Struct(pageParams(200)).annotations(strict)

export class VariantsApi extends HttpApiGroup.make("variants")
  .add(HttpApiEndpoint.get("list", "/v1/products/:id/variants").setPath(IdPath).setUrlParams(VariantsQuery).addSuccess(VariantList).addError(NotFoundWire))
  .add(HttpApiEndpoint.post("create", "/v1/products/:id/variants").setPath(IdPath).setPayload(everyIssue(CreateVariant)).addSuccess(Variant, { status: 201 }).addError(ConflictWire).addError(NotFoundWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/products/:id/variants/:variantId").setPath(VariantPath).setUrlParams(NoQuery).addSuccess(Variant).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/products/:id/variants/:variantId").setPath(VariantPath).setPayload(everyIssue(UpdateVariant)).addSuccess(Variant).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/products/:id/variants/:variantId").setPath(VariantPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
