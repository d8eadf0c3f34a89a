import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { CreateRelationship, ProductRelationship } from "../../../core/relationships/Relationship.js"
import { IntegerParam, strict, Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"

const RelationshipsQuery = Schema.Struct({
  limit: Schema.optional(IntegerParam(1, 200)),
  offset: Schema.optional(IntegerParam(0, Number.MAX_SAFE_INTEGER, 0))
}).annotations(strict)
const RelationshipPath = Schema.Struct({ id: Uuid, relationshipId: Uuid })

export class RelationshipsApi extends HttpApiGroup.make("relationships")
  .add(HttpApiEndpoint.get("list", "/v1/products/:id/relationships").setPath(IdPath).setUrlParams(RelationshipsQuery).addSuccess(Schema.Array(ProductRelationship)).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.post("create", "/v1/products/:id/relationships").setPath(IdPath).setPayload(everyIssue(CreateRelationship))
      .addSuccess(ProductRelationship, { status: 201 })
  .addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/products/:id/relationships/:relationshipId").setPath(RelationshipPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
