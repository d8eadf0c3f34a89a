import { Schema } from "effect"
import { DateTimeString, Name, Timestamp, Uuid } from "../shared/Fields.js"
import { Unchangeable } from "../shared/Unchangeable.js"

const ApiKeyStatus = Schema.Literal("active", "revoked", "expired")

/** An API key as listed: never the key itself, only its first characters. */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Uuid,
  name: Schema.String,
  prefix: Schema.String,
  status: ApiKeyStatus,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp),
  expiresAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp)
}) {}

/** The create response: the only place the plaintext key ever appears. */
export class CreatedApiKey extends Schema.Class<CreatedApiKey>("CreatedApiKey")({
  ...ApiKey.fields,
  key: Schema.String
}) {}

/** A stored key row, as the repository returns it. */
export interface ApiKeyRecord {
  readonly id: string
  readonly organizationId: string
  readonly name: string
  readonly prefix: string
  readonly keyHash: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly lastUsedAt: string | null
  readonly expiresAt: string | null
  readonly revokedAt: string | null
}

/** `expiresAt: null` is a key without an expiry, as the record shows it. */
export const CreateApiKey = Schema.Struct({
  name: Name,
  expiresAt: Schema.optional(Schema.NullOr(DateTimeString))
})

/** `name` is the only editable field; `expiresAt` is accepted only when it equals the current one. */
export const RenameApiKey = Schema.Struct({
  name: Name,
  expiresAt: Schema.optional(Unchangeable)
})
export type RenameApiKey = typeof RenameApiKey.Type

export const KEY_PREFIX = "pim_"

const statusAt = (key: ApiKeyRecord, nowIso: string): typeof ApiKeyStatus.Type =>
  key.revokedAt !== null ? "revoked" : key.expiresAt !== null && key.expiresAt <= nowIso ? "expired" : "active"

export const toApiKey = (key: ApiKeyRecord, nowIso: string): ApiKey =>
  new ApiKey({
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    status: statusAt(key, nowIso),
    createdAt: key.createdAt,
    updatedAt: key.updatedAt,
    lastUsedAt: key.lastUsedAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt
  })
