import { Context, Schema } from "effect"

/** Who made a change: recorded with every event. */
export const ActorType = Schema.Literal("api_key", "user", "service", "system")
export type ActorType = typeof ActorType.Type

export const Actor = Schema.Struct({ type: ActorType, id: Schema.String })
export type Actor = typeof Actor.Type

/** Used where no person or key acts: provisioning at start and service-key calls. */
export const SYSTEM_ACTOR_ID = "00000000-0000-0000-0000-000000000000"

export const Role = Schema.Literal("admin", "editor")
export type Role = typeof Role.Type

/**
 * The organization a request acts in and who acts. Resolved once per request from its
 * credentials; every tenant use case reads it.
 */
export class CurrentTenant extends Context.Tag("catalog/CurrentTenant")<CurrentTenant, {
  readonly organizationId: string
  readonly actor: Actor
  /** The member's role for a session; null for an API key, which is not a member. */
  readonly role: Role | null
}>() {}
