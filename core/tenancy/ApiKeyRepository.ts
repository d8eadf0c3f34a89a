import { Context, type Effect, type Option } from "effect"
import type { ApiKeyRecord } from "./ApiKey.js"

export class ApiKeyRepository extends Context.Tag("catalog/ApiKeyRepository")<ApiKeyRepository, {
  /** Answers false, writing nothing, when a key of that hash exists (another process registered the same key first). */
  readonly insert: (key: ApiKeyRecord) => Effect.Effect<boolean>
  /** Keys of one organization, newest first, revoked ones included. */
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<ApiKeyRecord>>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  /** Resolves a presented key by its hash, across organizations (authentication). */
  readonly findByHash: (keyHash: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  readonly rename: (organizationId: string, id: string, name: string, at: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  /** Revokes an active key; None when it does not exist or is already revoked. */
  readonly revoke: (organizationId: string, id: string, at: string) => Effect.Effect<Option.Option<ApiKeyRecord>>
  /**
   * Records the key's use at `at`, unless a use after `unlessAfter` is recorded already (by
   * any process on the database, each of which would otherwise write its own once a minute).
   */
  readonly touchLastUsed: (id: string, at: string, unlessAfter: string) => Effect.Effect<void>
}>() {}
