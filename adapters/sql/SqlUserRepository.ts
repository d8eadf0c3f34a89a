import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { Role } from "../../core/tenancy/Actor.js"
import { UserRepository } from "../../core/tenancy/UserRepository.js"

const UserRow = Schema.Struct({ id: Schema.String, email: Schema.NullOr(Schema.String) })
const MembershipRow = Schema.Struct({ organizationId: Schema.String, role: Role })
const InviteRow = Schema.Struct({ organizationId: Schema.String, role: Role })

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const firstUser = (rows: ReadonlyArray<unknown>) =>
    Schema.decodeUnknown(Schema.Array(UserRow))(rows).pipe(Effect.map(Array.head))

  const addMembership = (organizationId: string, userId: string, role: Role, at: string) =>
    sql`insert into memberships ${sql.insert({ organizationId, userId, role, createdAt: at })}
        on conflict (organization_id, user_id) do update set role = excluded.role`.pipe(Effect.asVoid, Effect.orDie)

  return UserRepository.of({
    upsert: (user, at) =>
      sql`insert into users ${sql.insert({ id: user.id, email: user.email, createdAt: at, updatedAt: at })}
          on conflict (id) do update set email = coalesce(excluded.email, users.email), updated_at = excluded.updated_at`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    findById: (id) => sql`select id, email from users where id = ${id}`.pipe(Effect.flatMap(firstUser), Effect.orDie),
    findByEmail: (email) =>
      sql`select id, email from users where lower(email) = ${email.toLowerCase()} order by created_at limit 1`.pipe(
        Effect.flatMap(firstUser),
        Effect.orDie
      ),
    addMembership,
    roleIn: (organizationId, userId) =>
      sql`select organization_id, role from memberships where organization_id = ${organizationId} and user_id = ${userId}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(MembershipRow))),
        Effect.map((rows) => Option.map(Array.head(rows), (r) => r.role)),
        Effect.orDie
      ),
    memberships: (userId) =>
      sql`select organization_id, role from memberships where user_id = ${userId} order by created_at`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(MembershipRow))),
        Effect.orDie
      ),
    addInvite: (organizationId, email, role, at) =>
      sql`insert into invites ${sql.insert({ organizationId, email: email.toLowerCase(), role, createdAt: at })}
          on conflict (organization_id, email) do update set role = excluded.role`.pipe(Effect.asVoid, Effect.orDie),
    claimInvites: (userId, email, at) =>
      Effect.gen(function*() {
        const invites = yield* sql`select organization_id, role from invites where email = ${email.toLowerCase()}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(InviteRow)))
        )
        for (const invite of invites) yield* addMembership(invite.organizationId, userId, invite.role, at)
        if (invites.length > 0) yield* sql`delete from invites where email = ${email.toLowerCase()}`
        return invites.length
      }).pipe(Effect.orDie)
  })
})

export const layer = Layer.effect(UserRepository, make)
