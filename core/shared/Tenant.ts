import { Effect } from "effect"
import { UnitOfWork } from "./UnitOfWork.js"
import { isUuid, toTimestamp } from "./Fields.js"
import { currentMillis } from "./WriteInstant.js"
import { type Actor, CurrentTenant } from "../tenancy/Actor.js"

/** The current instant as the API writes it: inside a transaction, the transaction's (see `WriteInstant`). */
export const now = Effect.map(currentMillis, toTimestamp)

/** `createdBy`/`updatedBy`: the acting user's or key's id; null where the actor has no uuid. */
export const actorId = (actor: Actor): string | null => (isUuid(actor.id) ? actor.id : null)

/** Runs `f` in one transaction of the current organization. */
export const tenantTransaction = (uow: typeof UnitOfWork.Service) =>
<A, E, R>(f: (organizationId: string, tenant: typeof CurrentTenant.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(CurrentTenant, (t) => uow.tenant(t.organizationId, f(t.organizationId, t)))
