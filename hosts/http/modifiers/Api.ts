import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { CreateModifier, Modifier, UpdateModifier } from "../../../core/modifiers/Modifier.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

export class ModifiersApi extends HttpApiGroup.make("modifiers")
  .add(HttpApiEndpoint.get("list", "/v1/modifiers").setUrlParams(NoQuery).addSuccess(Schema.Array(Modifier)))
  .add(HttpApiEndpoint.post("create", "/v1/modifiers").setPayload(everyIssue(CreateModifier)).addSuccess(Modifier, { status: 201 }).addError(ConflictWire).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/modifiers/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Modifier).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/modifiers/:id").setPath(IdPath).setPayload(everyIssue(UpdateModifier)).addSuccess(Modifier).addError(ConflictWire).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/modifiers/:id").setPath(IdPath).addSuccess(Schema.Void, { status: 204 }).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
