import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { CreateRelationship, ProductRelationship } from "../../../core/relationships/Relationship.js"
import { Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const RelationshipPath = Schema.Struct({ id: Uuid, relationshipId: Uuid })

export class RelationshipsApi extends HttpApiGroup.make("relationships")
  .add(HttpApiEndpoint.get("list", "/v1/products/:id/relationships").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Schema.Array(ProductRelationship)))
  .add(
    HttpApiEndpoint.post("create", "/v1/products/:id/relationships").setPath(IdPath).setPayload(everyIssue(CreateRelationship))
      .addSuccess(ProductRelationship, { status: 201 })
  )
  .add(HttpApiEndpoint.del("remove", "/v1/products/:id/relationships/:relationshipId").setPath(RelationshipPath).addSuccess(HttpApiSchema.NoContent))
  .middleware(TenantAuth)
{}
