import { Schema } from "effect"
import { isCurrencyCode } from "../shared/Currencies.js"
import { ClosedStruct } from "../shared/Closed.js"
import { isEmailAddress, Name, NonEmptyString, Slug, strict, Timestamp, Uuid } from "../shared/Fields.js"

/** The only settings an organization holds; any other key is refused on write. */
export const OrganizationSettings = Schema.Struct({
  default_locale: Schema.optional(Schema.String),
  default_channel: Schema.optional(Schema.String),
  default_currency: Schema.optional(Schema.String),
  content_pages_enabled: Schema.optional(Schema.Boolean)
}).annotations(strict)
export type OrganizationSettings = typeof OrganizationSettings.Type

const CurrencyCode = Schema.String.pipe(Schema.filter(isCurrencyCode, { message: () => "must be an ISO 4217 code such as EUR" }))

/**
 * Settings as a write may set them: a default locale or channel that a value can carry (never
 * empty), a currency that a money value can. Stored settings are read as they were written.
 */
const SettingsInput = ClosedStruct({
  default_locale: Schema.optional(NonEmptyString),
  default_channel: Schema.optional(NonEmptyString),
  default_currency: Schema.optional(CurrencyCode),
  content_pages_enabled: Schema.optional(Schema.Boolean)
})

/**
 * Settings as a PATCH sends them: merged key by key into those stored, a key sent as null
 * removed (as a value entry sent with `value: null` is), so one setting can be unset alone.
 */
const SettingsPatch = ClosedStruct({
  default_locale: Schema.optional(Schema.NullOr(NonEmptyString)),
  default_channel: Schema.optional(Schema.NullOr(NonEmptyString)),
  default_currency: Schema.optional(Schema.NullOr(CurrencyCode)),
  content_pages_enabled: Schema.optional(Schema.NullOr(Schema.Boolean))
})
type SettingsPatch = typeof SettingsPatch.Type

/** The stored settings with a PATCH's merged in; removing keys from no settings at all, or merging none, leaves none. */
export const mergeSettings = (before: OrganizationSettings | null, patch: SettingsPatch): OrganizationSettings | null => {
  const merged = Object.fromEntries(Object.entries({ ...before, ...patch }).filter(([, value]) => value !== null))
  if (before === null && Object.keys(merged).length === 0) return null
  return Schema.decodeUnknownSync(OrganizationSettings)(merged)
}

/** Where a required attribute must be filled: the default locale and channel, null where unset. */
export const defaultScope = (settings: OrganizationSettings | null): { readonly locale: string | null; readonly channel: string | null } => ({
  locale: settings?.default_locale ?? null,
  channel: settings?.default_channel ?? null
})

const BillingStatus = Schema.Literal("trialing", "active", "past_due", "paused", "cancelled")

/** Read-only; written by a billing control plane. Null where the deployment does not bill. */
export const Billing = Schema.Struct({
  plan: Schema.String,
  status: BillingStatus,
  interval: Schema.optional(Schema.NullOr(Schema.Literal("weekly", "monthly", "quarterly", "yearly"))),
  currentPeriodEnd: Schema.optional(Schema.NullOr(Schema.String)),
  cancelAtPeriodEnd: Schema.optional(Schema.NullOr(Schema.Boolean)),
  trialEnd: Schema.optional(Schema.NullOr(Schema.String))
})
export type Billing = typeof Billing.Type

export class Organization extends Schema.Class<Organization>("Organization")({
  id: Uuid,
  name: Schema.String,
  slug: Schema.String,
  settings: Schema.NullOr(OrganizationSettings),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

/**
 * No organization has the single-tenant slug and the database holds several: serving one of them
 * (the oldest, say) would hand another tenant's catalog to the deployment's key and invite.
 */
export class AmbiguousBootstrapOrganization extends Schema.TaggedError<AmbiguousBootstrapOrganization>()("AmbiguousBootstrapOrganization", {
  slug: Schema.String
}) {
  override get message(): string {
    return `no organization has the slug ${this.slug} and the database holds several: set the slug of the one to serve`
  }
}

export const FeatureState = Schema.Struct({ entitled: Schema.Boolean, enabled: Schema.Boolean })

/** `GET /v1/organizations/me`: the organization with its features and billing. */
export class OrganizationDetails extends Schema.Class<OrganizationDetails>("OrganizationDetails")({
  ...Organization.fields,
  features: Schema.Struct({ content_pages: FeatureState }),
  billing: Schema.NullOr(Billing)
}) {}

export const InitialAdmin = ClosedStruct({
  email: Schema.optional(Schema.String.pipe(
    Schema.maxLength(254, { message: () => "must be at most 254 characters" }),
    Schema.filter(isEmailAddress, { message: () => "must be an email address" })
  )),
  userId: Schema.optional(Uuid)
})

export const CreateOrganization = Schema.Struct({
  name: Name,
  slug: Slug,
  settings: Schema.optional(Schema.NullOr(SettingsInput)),
  initialAdmin: Schema.optional(InitialAdmin)
})
export type CreateOrganization = typeof CreateOrganization.Type

export const UpdateOrganization = Schema.Struct({
  name: Schema.optional(Name),
  slug: Schema.optional(Slug),
  settings: Schema.optional(Schema.NullOr(SettingsPatch))
})
export type UpdateOrganization = typeof UpdateOrganization.Type

export const DeleteOrganization = Schema.Struct({ confirm: NonEmptyString })

export class OrganizationDeleted extends Schema.Class<OrganizationDeleted>("OrganizationDeleted")({
  exportKey: Schema.String,
  deletedCounts: Schema.Record({ key: Schema.String, value: Schema.Number })
}) {}
