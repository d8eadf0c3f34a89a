import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { AttachModifier, ProductModifier } from "../../../core/modifiers/ProductModifier.js"
import { Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const AttachedPath = Schema.Struct({ id: Uuid, modifierId: Uuid })

export class ProductModifiersApi extends HttpApiGroup.make("productModifiers")
  .add(HttpApiEndpoint.get("list", "/v1/products/:id/modifiers").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Schema.Array(ProductModifier)).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.post("attach", "/v1/products/:id/modifiers").setPath(IdPath).setPayload(everyIssue(AttachModifier))
      .addSuccess(ProductModifier, { status: 201 })
  .addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("detach", "/v1/products/:id/modifiers/:modifierId").setPath(AttachedPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
