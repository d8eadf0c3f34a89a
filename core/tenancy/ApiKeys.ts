import { Context, Effect, Layer, Option } from "effect"
import { emit, EventLog, eventServices, makeEvent } from "../events/EventLog.js"
import { datetimeMillis } from "../shared/Calendar.js"
import { Crypto } from "../shared/Crypto.js"
import { NotFound, ValidationFailed } from "../shared/Errors.js"
import { keepUnchanged } from "../shared/Unchangeable.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant, SYSTEM_ACTOR_ID } from "./Actor.js"
import { type ApiKey, CreatedApiKey, KEY_PREFIX, type RenameApiKey, toApiKey } from "./ApiKey.js"
import { ApiKeyRepository } from "./ApiKeyRepository.js"
import { Authentication } from "./Authentication.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class ApiKeys extends Context.Tag("catalog/ApiKeys")<ApiKeys, {
  readonly list: Effect.Effect<ReadonlyArray<ApiKey>, never, CurrentTenant>
  readonly create: (
    input: { readonly name: string; readonly expiresAt?: string | null | undefined }
  ) => Effect.Effect<CreatedApiKey, ValidationFailed, CurrentTenant>
  readonly rename: (id: string, input: RenameApiKey) => Effect.Effect<ApiKey, NotFound | ValidationFailed, CurrentTenant>
  readonly revoke: (id: string) => Effect.Effect<ApiKey, NotFound, CurrentTenant>
  /**
   * Registers a known plaintext key (the single-tenant bootstrap key) unless an organization
   * holds it already; answers the organization that holds it.
   */
  readonly ensure: (organizationId: string, plaintext: string, name: string) => Effect.Effect<string>
  /** Mints a key for an organization outside any request (the printed bootstrap key). */
  readonly mint: (organizationId: string, name: string) => Effect.Effect<string>
}>() {}

const makeApiKeys = Effect.gen(function*() {
  const repo = yield* ApiKeyRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog
  const auth = yield* Authentication
  const services = yield* eventServices

  const inTenant = tenantTransaction(uow)

  const insertKey = (organizationId: string, plaintext: string, name: string, expiresAt: string | null) =>
    Effect.gen(function*() {
      const at = yield* now
      const record = {
        id: yield* crypto.uuid,
        organizationId,
        name,
        prefix: plaintext.slice(0, KEY_PREFIX.length + 4),
        keyHash: yield* crypto.sha256Hex(plaintext),
        createdAt: at,
        updatedAt: at,
        lastUsedAt: null,
        expiresAt,
        revokedAt: null
      }
      const inserted = yield* repo.insert(record)
      return { ...record, inserted }
    })

  const list = Effect.gen(function*() {
    const at = yield* now
    const rows = yield* inTenant(repo.list)
    return rows.map((r) => toApiKey(r, at))
  })

  const create = (input: { readonly name: string; readonly expiresAt?: string | null | undefined }) =>
    Effect.gen(function*() {
      const at = yield* now
      // A past instant is taken as given: the key is created expired, and refused on use.
      const expiresAt = input.expiresAt == null ? null : new Date(input.expiresAt).toISOString()
      const plaintext = KEY_PREFIX + (yield* crypto.randomToken(32))
      const record = yield* inTenant((organizationId) =>
        Effect.gen(function*() {
          const record = yield* insertKey(organizationId, plaintext, input.name, expiresAt)
          yield* services(emit({ name: "api_key.created", entityType: "api_key", entityId: record.id, payload: { name: record.name } }))
          return record
        })
      )
      return new CreatedApiKey({ ...toApiKey(record, at), key: plaintext })
    })

  const rename = (id: string, { expiresAt, name }: RenameApiKey) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("api_key", [id])
        const at = yield* now
        const before = yield* repo.findById(organizationId, id)
        if (Option.isNone(before)) return yield* new NotFound({ entity: "api key", id })
        yield* keepUnchanged([["expiresAt", expiresAt, before.value.expiresAt]], sameInstant)
        const changed = before.value.name === name ? [] : ["name"]
        yield* services(emit({ name: "api_key.updated", entityType: "api_key", entityId: id, payload: { changed_fields: changed } }))
        // The same name again writes nothing.
        if (changed.length === 0) return toApiKey(before.value, at)
        const row = yield* repo.rename(organizationId, id, name, at)
        if (Option.isNone(row)) return yield* new NotFound({ entity: "api key", id })
        return toApiKey(row.value, at)
      })
    )

  const revoke = (id: string) =>
    Effect.gen(function*() {
      const key = yield* inTenant((organizationId) =>
        Effect.gen(function*() {
          // Held before the clock is read: a rename in flight commits first, stamped before it.
          yield* uow.lock("api_key", [id])
          const at = yield* now
          const row = yield* repo.revoke(organizationId, id, at)
          if (Option.isNone(row)) return yield* new NotFound({ entity: "api key", id })
          yield* services(emit({ name: "api_key.revoked", entityType: "api_key", entityId: id, payload: {} }))
          return toApiKey(row.value, at)
        })
      )
      // This process stops honouring the key at once; others within the cache's lifetime.
      yield* auth.invalidateKeys
      return key
    })

  /** A key made at start, outside any request: recorded as the bootstrap organization is, by the system. */
  const register = (organizationId: string, plaintext: string, name: string) =>
    uow.tenant(
      organizationId,
      Effect.gen(function*() {
        const record = yield* insertKey(organizationId, plaintext, name, null)
        // Another process starting at the same time registered the same bootstrap key first.
        if (!record.inserted) return
        const event = yield* makeEvent(organizationId, { type: "system", id: SYSTEM_ACTOR_ID }, {
          name: "api_key.created",
          entityType: "api_key",
          entityId: record.id,
          payload: { name }
        }).pipe(Effect.provideService(Crypto, crypto))
        yield* events.append([event])
      })
    )

  const ensure = (organizationId: string, plaintext: string, name: string) =>
    Effect.gen(function*() {
      const existing = yield* uow.system(repo.findByHash(yield* crypto.sha256Hex(plaintext)))
      if (Option.isSome(existing)) return existing.value.organizationId
      yield* register(organizationId, plaintext, name)
      return organizationId
    })

  const mint = (organizationId: string, name: string) =>
    Effect.gen(function*() {
      const plaintext = KEY_PREFIX + (yield* crypto.randomToken(32))
      yield* register(organizationId, plaintext, name)
      return plaintext
    })

  return withRecordIds(ApiKeys.of({ list, create, rename, revoke, ensure, mint }), { rename: ["api key"], revoke: ["api key"] })
})

export const ApiKeysLive = Layer.effect(ApiKeys, makeApiKeys)

const sameInstant = (sent: unknown, stored: unknown): boolean =>
  sent === null ? stored === null : typeof sent === "string" && typeof stored === "string" && datetimeMillis(sent) === datetimeMillis(stored)
