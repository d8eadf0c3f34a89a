import { Context, Effect, Layer } from "effect"
import { emit, eventServices } from "../events/EventLog.js"
import { Crypto } from "../shared/Crypto.js"
import type { ValidationFailed } from "../shared/Errors.js"
import { takenAs } from "../shared/Taken.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import type { CurrentTenant } from "../tenancy/Actor.js"
import { AttributeGroup, type CreateAttributeGroup } from "./Attribute.js"
import { AttributeRepository } from "./AttributeRepository.js"
import { now, tenantTransaction } from "../shared/Tenant.js"

export class AttributeGroups extends Context.Tag("catalog/AttributeGroups")<AttributeGroups, {
  readonly list: Effect.Effect<ReadonlyArray<AttributeGroup>, never, CurrentTenant>
  /** Fails with ValidationFailed (`taken`) when the code is taken. */
  readonly create: (input: CreateAttributeGroup) => Effect.Effect<AttributeGroup, ValidationFailed, CurrentTenant>
}>() {}

const makeAttributeGroups = Effect.gen(function*() {
  const repo = yield* AttributeRepository
  const crypto = yield* Crypto
  const tenant = tenantTransaction(yield* UnitOfWork)
  const services = yield* eventServices

  return AttributeGroups.of({
    list: tenant(repo.listGroups),
    create: (input) =>
      tenant((organizationId) =>
        Effect.gen(function*() {
          const at = yield* now
          const group = new AttributeGroup({
            id: yield* crypto.uuid,
            organizationId,
            code: input.code,
            label: input.label,
            position: input.position ?? 0,
            createdAt: at,
            updatedAt: at
          })
          yield* repo.insertGroup(group).pipe(takenAs(["code"], `the code ${group.code} is taken by another group`))
          yield* services(emit({ name: "attribute_group.created", entityType: "attribute_group", entityId: group.id, payload: { code: group.code } }))
          return group
        })
      )
  })
})

export const AttributeGroupsLive = Layer.effect(AttributeGroups, makeAttributeGroups)
