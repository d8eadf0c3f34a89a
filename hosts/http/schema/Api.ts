import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import {
  Attribute,
  AttributeGroup,
  AttributeUsage,
  CreateAttribute,
  CreateAttributeGroup,
  ListAttributesQuery,
  UpdateAttribute
} from "../../../core/schema/Attribute.js"
import {
  AttachAttribute,
  CreateFamily,
  Family,
  FamilyAttachment,
  FamilyDetails,
  ListFamiliesQuery,
  UpdateAttachment,
  UpdateFamily
} from "../../../core/schema/Family.js"
import { Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

const AttachmentPath = Schema.Struct({ id: Uuid, attributeId: Uuid })

export class AttributeGroupsApi extends HttpApiGroup.make("attributeGroups")
  .add(HttpApiEndpoint.get("list", "/v1/attribute-groups").setUrlParams(NoQuery).addSuccess(Schema.Array(AttributeGroup)))
  .add(HttpApiEndpoint.post("create", "/v1/attribute-groups").setPayload(everyIssue(CreateAttributeGroup)).addSuccess(AttributeGroup, { status: 201 }))
  .middleware(TenantAuth)
{}

export class AttributesApi extends HttpApiGroup.make("attributes")
  .add(HttpApiEndpoint.get("list", "/v1/attributes").setUrlParams(ListAttributesQuery).addSuccess(Schema.Array(Attribute)))
  .add(HttpApiEndpoint.post("create", "/v1/attributes").setPayload(everyIssue(CreateAttribute)).addSuccess(Attribute, { status: 201 }).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/attributes/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Attribute).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/attributes/:id").setPath(IdPath).setPayload(everyIssue(UpdateAttribute)).addSuccess(Attribute).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("delete", "/v1/attributes/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundWire))
  .add(HttpApiEndpoint.get("usage", "/v1/attributes/:id/usage").setPath(IdPath).setUrlParams(NoQuery).addSuccess(AttributeUsage).addError(NotFoundWire))
  .middleware(TenantAuth)
{}

export class FamiliesApi extends HttpApiGroup.make("families")
  .add(HttpApiEndpoint.get("list", "/v1/attribute-families").setUrlParams(ListFamiliesQuery).addSuccess(Schema.Array(Family)))
  .add(HttpApiEndpoint.post("create", "/v1/attribute-families").setPayload(everyIssue(CreateFamily)).addSuccess(Family, { status: 201 }).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/attribute-families/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(FamilyDetails).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/attribute-families/:id").setPath(IdPath).setPayload(everyIssue(UpdateFamily)).addSuccess(Family).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("delete", "/v1/attribute-families/:id").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(ConflictWire).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.post("attach", "/v1/attribute-families/:id/attributes")
      .setPath(IdPath)
      .setPayload(everyIssue(AttachAttribute))
      .addSuccess(FamilyAttachment, { status: 201 })
  .addError(NotFoundWire))
  .add(
    HttpApiEndpoint.patch("updateAttachment", "/v1/attribute-families/:id/attributes/:attributeId")
      .setPath(AttachmentPath)
      .setPayload(everyIssue(UpdateAttachment))
      .addSuccess(FamilyAttachment)
  .addError(NotFoundWire))
  .add(
    HttpApiEndpoint.del("detach", "/v1/attribute-families/:id/attributes/:attributeId")
      .setPath(AttachmentPath)
      .addSuccess(HttpApiSchema.NoContent)
  .addError(NotFoundWire))
  .middleware(TenantAuth)
{}
