import { documentLocation } from "../Location.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { NotFoundWire } from "../Errors.js"
import { Schema } from "effect"
import { Connector, Delivery, DeliveryPage, InstallConnector, UpdateConnector } from "../../../core/connectors/Connector.js"
import { strict } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { pageParams } from "../Paging.js"
import { IdPath } from "../tenancy/Api.js"
import { everyIssue } from "../EveryIssue.js"
import { NoQuery } from "../ClosedQuery.js"

// Paged like the product list (DESIGN: "`{data, limit, offset, hasMore}` like the product list"):
// `limit` 1 to 200, default 50. The log keeps only the 50 most recent attempts, so a larger
// limit simply returns all of them.
const DeliveriesQuery = Schema.Struct(pageParams(200)).annotations(strict)

/** Headless connectors: install, manage, inspect their deliveries, send a test. */
export class ConnectorsApi extends HttpApiGroup.make("connectors")
  .add(HttpApiEndpoint.get("list", "/v1/connectors").setUrlParams(NoQuery).addSuccess(Schema.Array(Connector)))
  .add(HttpApiEndpoint.post("install", "/v1/connectors").setPayload(everyIssue(InstallConnector)).addSuccess(Connector, { status: 201 }).annotate(OpenApi.Transform, documentLocation))
  .add(HttpApiEndpoint.get("get", "/v1/connectors/:id").setPath(IdPath).setUrlParams(NoQuery).addSuccess(Connector).addError(NotFoundWire))
  .add(HttpApiEndpoint.patch("update", "/v1/connectors/:id").setPath(IdPath).setPayload(everyIssue(UpdateConnector)).addSuccess(Connector).addError(NotFoundWire))
  .add(HttpApiEndpoint.del("remove", "/v1/connectors/:id").setPath(IdPath).addError(NotFoundWire))
  .add(
    HttpApiEndpoint.get("deliveries", "/v1/connectors/:id/deliveries")
      .setPath(IdPath)
      .setUrlParams(DeliveriesQuery)
      .addSuccess(DeliveryPage)
  .addError(NotFoundWire))
  .add(HttpApiEndpoint.post("test", "/v1/connectors/:id/webhooks/test").setPath(IdPath).addSuccess(Delivery).addError(NotFoundWire))
  .middleware(TenantAuth)
{}
