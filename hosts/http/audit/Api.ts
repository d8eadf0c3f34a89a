import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { AuditPage } from "../../../core/events/AuditEntry.js"
import { DATETIME_MESSAGE, isCalendarDate } from "../../../core/shared/Calendar.js"
import { DateTimeString, strict, Uuid } from "../../../core/shared/Fields.js"
import { TenantAuth } from "../Authentication.js"
import { pageParams } from "../Paging.js"

/** A moment to filter by: an ISO 8601 date-time with a zone, or a date (midnight UTC). */
const Instant = Schema.String.pipe(
  Schema.filter((s) => isCalendarDate(s) || Schema.is(DateTimeString)(s), {
    message: () => `${DATETIME_MESSAGE}, or a date`,
    jsonSchema: { anyOf: [{ type: "string", format: "date-time" }, { type: "string", format: "date" }] }
  })
)

/** A day (UTC) to filter by. */
const Day = Schema.String.pipe(Schema.filter(isCalendarDate, { message: () => "must be a date (YYYY-MM-DD)", jsonSchema: { format: "date" } }))

/** The audit log's filters: snake_case, as the specification names them. Unknown keys are refused. */
export const AuditQuery = Schema.Struct({
  // Closed to the shape of entity types, as `action` is: `Product` would match nothing, silently.
  entity_type: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_]*$/, { message: () => "must be an entity type such as product" }))),
  entity_id: Schema.optional(Uuid),
  action: Schema.optional(Schema.String.pipe(Schema.pattern(/^[a-z0-9_]+$/, { message: () => "must be an action such as created" }))),
  since: Schema.optional(Instant),
  until: Schema.optional(Instant),
  date: Schema.optional(Day),
  ...pageParams(200)
}).annotations(strict)

export class AuditApi extends HttpApiGroup.make("audit")
  .add(HttpApiEndpoint.get("list", "/v1/audit-log").setUrlParams(AuditQuery).addSuccess(AuditPage))
  .middleware(TenantAuth)
{}
