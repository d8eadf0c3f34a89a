import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import type { ApiKeyRecord } from "../../core/tenancy/ApiKey.js"
import { ApiKeyRepository } from "../../core/tenancy/ApiKeyRepository.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  keyHash: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String)
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<ApiKeyRecord>> => Effect.orDie(decodeRows(rows))
  const first = (rows: ReadonlyArray<unknown>) => Effect.map(all(rows), Array.head)

  return ApiKeyRepository.of({
    insert: (key) =>
      sql`insert into api_keys ${sql.insert({ ...key })} on conflict (key_hash) do nothing returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    list: (organizationId) =>
      sql`select * from api_keys where organization_id = ${organizationId} order by created_at desc, id desc`.pipe(
        Effect.orDie,
        Effect.flatMap(all)
      ),
    findById: (organizationId, id) =>
      sql`select * from api_keys where organization_id = ${organizationId} and id = ${id}`.pipe(Effect.orDie, Effect.flatMap(first)),
    findByHash: (keyHash) => sql`select * from api_keys where key_hash = ${keyHash}`.pipe(Effect.orDie, Effect.flatMap(first)),
    rename: (organizationId, id, name, at) =>
      sql`update api_keys set name = ${name}, updated_at = ${at}
          where organization_id = ${organizationId} and id = ${id} returning *`.pipe(Effect.orDie, Effect.flatMap(first)),
    revoke: (organizationId, id, at) =>
      sql`update api_keys set revoked_at = ${at}, updated_at = ${at}
          where organization_id = ${organizationId} and id = ${id} and revoked_at is null returning *`.pipe(
        Effect.orDie,
        Effect.flatMap(first)
      ),
    touchLastUsed: (id, at, unlessAfter) =>
      sql`update api_keys set last_used_at = ${at}
        where id = ${id} and (last_used_at is null or last_used_at <= ${unlessAfter})`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(ApiKeyRepository, make)
