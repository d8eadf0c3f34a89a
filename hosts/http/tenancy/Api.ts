import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { Uuid } from "../../../core/shared/Fields.js"
import { ActorType, Role } from "../../../core/tenancy/Actor.js"
import { ApiKey, CreateApiKey, CreatedApiKey, RenameApiKey } from "../../../core/tenancy/ApiKey.js"
import {
  CreateOrganization,
  DeleteOrganization,
  Organization,
  OrganizationDeleted,
  OrganizationDetails,
  UpdateOrganization
} from "../../../core/tenancy/Organization.js"
import { CallerAuth, TenantAuth } from "../Authentication.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"
import { OrganizationAdmin } from "./Auth.js"

export const IdPath = Schema.Struct({ id: Uuid })

const Me = Schema.Struct({
  organization: Schema.NullOr(Schema.Struct({ id: Schema.String, name: Schema.String, slug: Schema.String })),
  actor: Schema.Struct({ type: ActorType, id: Schema.String }),
  role: Schema.NullOr(Role)
})

/** Routes open to callers outside any organization: who am I, and creating organizations. */
export class CallerApi extends HttpApiGroup.make("caller")
  .add(HttpApiEndpoint.get("me", "/v1/me").setUrlParams(NoQuery).addSuccess(Me).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.post("createOrganization", "/v1/organizations")
      .setPayload(everyIssue(CreateOrganization))
      .addSuccess(Organization, { status: 201 })
  .addError(NotFoundWire))
  .middleware(CallerAuth)
{}

export class OrganizationsApi extends HttpApiGroup.make("organizations")
  .add(HttpApiEndpoint.get("current", "/v1/organizations/me").setUrlParams(NoQuery).addSuccess(OrganizationDetails).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("updateCurrent", "/v1/organizations/me").setPayload(everyIssue(UpdateOrganization)).addSuccess(Organization).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.del("delete", "/v1/organizations/:id")
      .setPath(IdPath)
      .setPayload(everyIssue(DeleteOrganization))
      .addSuccess(OrganizationDeleted)
      .middleware(OrganizationAdmin)
  .addError(NotFoundWire))
  .middleware(TenantAuth)
{}

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(HttpApiEndpoint.get("list", "/v1/api-keys").setUrlParams(NoQuery).addSuccess(Schema.Array(ApiKey)))
  .add(HttpApiEndpoint.post("create", "/v1/api-keys").setPayload(everyIssue(CreateApiKey)).addSuccess(CreatedApiKey, { status: 201 }))
  .add(HttpApiEndpoint.patch("rename", "/v1/api-keys/:id").setPath(IdPath).setPayload(everyIssue(RenameApiKey)).addSuccess(ApiKey).addError(NotFoundWire))
  .add(HttpApiEndpoint.post("revoke", "/v1/api-keys/:id/revoke").setPath(IdPath).addSuccess(ApiKey).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
