import { Context, type Effect, type Option } from "effect"
import type { Role } from "./Actor.js"

export interface User {
  readonly id: string
  readonly email: string | null
}

/** Users (global, created on first sight), their memberships and pending invites. */
export class UserRepository extends Context.Tag("catalog/UserRepository")<UserRepository, {
  /** Records a user seen in a session (creating it the first time); keeps the newest email. */
  readonly upsert: (user: User, seenAt: string) => Effect.Effect<void>
  readonly findById: (id: string) => Effect.Effect<Option.Option<User>>
  readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
  readonly addMembership: (organizationId: string, userId: string, role: Role, at: string) => Effect.Effect<void>
  readonly roleIn: (organizationId: string, userId: string) => Effect.Effect<Option.Option<Role>>
  /** Organizations the user belongs to, oldest membership first. */
  readonly memberships: (userId: string) => Effect.Effect<ReadonlyArray<{ readonly organizationId: string; readonly role: Role }>>
  readonly addInvite: (organizationId: string, email: string, role: Role, at: string) => Effect.Effect<void>
  /** Turns every pending invite for `email` into a membership of `userId`; answers how many. */
  readonly claimInvites: (userId: string, email: string, at: string) => Effect.Effect<number>
}>() {}
