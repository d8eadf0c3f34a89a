import { Schema } from "effect"
import { EventPattern } from "../events/Subscription.js"
import { BoundedArray, BoundedMap } from "../shared/Bounded.js"
import { ClosedStruct } from "../shared/Closed.js"
import { Name, TextMap, Timestamp, Uuid } from "../shared/Fields.js"
import { shown } from "../shared/Preview.js"
import { Unchangeable } from "../shared/Unchangeable.js"

// The URL parser repairs what is not written as a URL (`http:host`, `http:/host`, a `\` read as
// `/`), so the address shown would not be the one delivered to: `http://203.0.113.10\@127.0.0.1/`
// reads as 127.0.0.1 and is sent to 203.0.113.10. The text must already be scheme, `//` and the rest.
const URL_TEXT = /^https?:\/\/[^\\]+$/i

const isHttpUrl = (s: string): boolean => {
  if (!URL_TEXT.test(s) || !URL.canParse(s)) return false
  const { protocol, hostname } = new URL(s)
  return (protocol === "http:" || protocol === "https:") && hostname.length > 0
}

/**
 * The address as the URL standard writes it (`http://EXAMPLE.com:80/a/../b` is
 * `http://example.com/b`, a percent-encoded or numeric IPv4 host its dotted form): the one
 * stored, shown and judged, so what is read back is where deliveries go.
 */
export const canonicalUrl = (s: string): string => new URL(s).href

/** `url` written canonically when it is a URL; anything else as it is, for comparing what a client sends back. */
export const asCanonicalUrl = (url: unknown): unknown => (typeof url === "string" && URL.canParse(url) ? canonicalUrl(url) : url)

const hasCredentials = (s: string): boolean => {
  const { username, password } = new URL(s)
  return username.length > 0 || password.length > 0
}

/**
 * Without a user name or password: the address is shown on every read of the connector and
 * kept in the tenant export, where credentials have no place (send them in `extra_headers`).
 */
const DestinationUrl = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  // The URL parser would drop them, yet the address would be shown as sent.
  Schema.filter((s) => !/[\s\p{Cc}]/u.test(s), { message: () => "must not hold white space or control characters" }),
  Schema.filter(isHttpUrl, { message: () => "must be an absolute http or https URL" }),
  // Stored canonically, where punycode and percent-encoding can make it longer than sent.
  Schema.filter((s) => canonicalUrl(s).length <= 2048, { message: () => "must be at most 2048 characters once written canonically" }),
  Schema.filter((s) => !hasCredentials(s), { message: () => "must not carry a user name or password; send credentials in extra_headers" }),
  // No connection can be made to it: every delivery would fail.
  Schema.filter((s) => new URL(s).port !== "0", { message: () => "must not name port 0" })
)

/** At least 16 characters, counted as code points (`Schema.minLength` counts UTF-16 units: 8 emoji would pass). */
const WebhookSecret = Schema.String.pipe(
  Schema.filter((s) => Array.from(s).length >= 16, { message: () => "must be at least 16 characters", jsonSchema: { minLength: 16 } })
)

/** Headers every delivery carries; `extra_headers` may not replace them. */
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "transfer-encoding", "connection", "expect", "upgrade", "trailer"])
/**
 * Headers that describe the body, which the service writes as plain JSON: `Content-Encoding: gzip`
 * or a digest sent with it would misdescribe it to the receiver.
 */
const describesBody = (lower: string) => lower.startsWith("content-") || lower === "digest" || lower === "repr-digest"
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/
/** Printable ASCII, spaces and tabs: what every HTTP stack sends and reads back alike. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/

const headerProblem = (name: string, value: string): string | undefined => {
  const lower = name.toLowerCase()
  // Quoted: a name that is no token may be empty or hold spaces.
  if (!HEADER_NAME.test(name)) return `${JSON.stringify(shown(name))} is not a valid header name`
  if (RESERVED_HEADERS.has(lower) || lower.startsWith("x-service-")) return `${shown(name)} is set by the service and cannot be overridden`
  if (describesBody(lower)) return `${shown(name)} describes the body, which the service sets, and cannot be overridden`
  if (!HEADER_VALUE.test(value) || value.length > 4096) return `the value of ${shown(name)} must be one line of printable ASCII of at most 4096 characters`
  return undefined
}

const ExtraHeaders = BoundedMap(TextMap, 20, "at most 20 headers").pipe(
  // Every problem at once, one issue each at the header it concerns, as the rest of a body's
  // are listed: a name given again in another case at that second name, as a label's locale is.
  Schema.filter((headers) => {
    const problems: Array<readonly [string, string]> = []
    const names = new Set<string>()
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase()
      if (names.has(lower)) problems.push([name, "header names are case-insensitive: name each header once"])
      names.add(lower)
      const problem = headerProblem(name, value)
      if (problem !== undefined) problems.push([name, problem])
    }
    return problems.map(([name, message]): Schema.FilterIssue => ({ path: [name], message }))
  }, {
    jsonSchema: {
      propertyNames: { type: "string", pattern: HEADER_NAME.source, not: { const: "__proto__" } },
      patternProperties: { "": { type: "string", pattern: HEADER_VALUE.source, maxLength: 4096 } }
    }
  })
)

const EventPatterns = BoundedArray(EventPattern, 100, "at most 100 patterns")

/** `POST /v1/connectors`. */
export const InstallConnector = Schema.Struct({
  type: Schema.Literal("headless"),
  name: Name,
  config: ClosedStruct({
    destination_url: DestinationUrl,
    secret: WebhookSecret,
    events: Schema.optional(EventPatterns),
    extra_headers: Schema.optional(ExtraHeaders)
  })
})
export type InstallConnector = typeof InstallConnector.Type

/**
 * `PATCH /v1/connectors/{id}`: a new name, a new subscription, or both. The type, destination
 * and extra headers are accepted only as they are, so a connector read and sent back whole is
 * accepted; the secret, never shown, is refused.
 */
export const UpdateConnector = Schema.Struct({
  type: Schema.optional(Unchangeable),
  name: Schema.optional(Name),
  config: Schema.optional(
    ClosedStruct({
      events: Schema.optional(EventPatterns),
      destination_url: Schema.optional(Unchangeable),
      extra_headers: Schema.optional(Unchangeable)
    })
  )
})
export type UpdateConnector = typeof UpdateConnector.Type

/** A connector as the API shows it: never its secret. */
export const Connector = Schema.Struct({
  id: Uuid,
  organizationId: Uuid,
  type: Schema.Literal("headless"),
  name: Schema.String,
  config: Schema.Struct({
    destination_url: Schema.String,
    events: Schema.Array(Schema.String),
    extra_headers: Schema.Record({ key: Schema.String, value: Schema.String })
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type Connector = typeof Connector.Type

/** A stored connector, secret included: for signing, never for responses. */
export interface ConnectorRecord {
  readonly id: string
  readonly organizationId: string
  readonly type: "headless"
  readonly name: string
  readonly destinationUrl: string
  readonly secret: string
  readonly events: ReadonlyArray<string>
  readonly extraHeaders: Readonly<Record<string, string>>
  readonly createdAt: string
  readonly updatedAt: string
}

export const toConnector = (c: ConnectorRecord): Connector => ({
  id: c.id,
  organizationId: c.organizationId,
  type: c.type,
  name: c.name,
  config: { destination_url: c.destinationUrl, events: c.events, extra_headers: c.extraHeaders },
  createdAt: c.createdAt,
  updatedAt: c.updatedAt
})

/** One attempt to deliver an event to a connector. `status` is null when no HTTP answer came. */
export const Delivery = Schema.Struct({
  id: Uuid,
  eventId: Schema.String,
  eventName: Schema.String,
  attemptedAt: Timestamp,
  durationMs: Schema.Number,
  status: Schema.NullOr(Schema.Number),
  ok: Schema.Boolean,
  error: Schema.NullOr(Schema.String)
})
export type Delivery = typeof Delivery.Type

export const DeliveryPage = Schema.Struct({
  data: Schema.Array(Delivery),
  limit: Schema.Number,
  offset: Schema.Number,
  hasMore: Schema.Boolean
})
export type DeliveryPage = typeof DeliveryPage.Type

/** The delivery log keeps this many attempts per connector. */
export const DELIVERY_LOG_SIZE = 50
