import { Context, Effect, Layer } from "effect"
import { emit, EventLog } from "../events/EventLog.js"
import { Crypto } from "../shared/Crypto.js"
import { type Conflict, type NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { type CreateModifier, Modifier, type ModifierOption, type ModifierType, optionIssues, type UpdateModifier } from "./Modifier.js"
import { ModifierRepository } from "./ModifierRepository.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Modifiers extends Context.Tag("catalog/Modifiers")<Modifiers, {
  readonly list: Effect.Effect<ReadonlyArray<Modifier>, never, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Modifier, NotFound, CurrentTenant>
  readonly create: (input: CreateModifier) => Effect.Effect<Modifier, ValidationFailed | Conflict, CurrentTenant>
  readonly update: (id: string, input: UpdateModifier) => Effect.Effect<Modifier, ValidationFailed | NotFound | Conflict, CurrentTenant>
  readonly remove: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
}>() {}

const checkOptions = (type: ModifierType, options: ReadonlyArray<ModifierOption>) => {
  const issues = optionIssues(type, options)
  return issues.length === 0 ? Effect.void : Effect.fail(ValidationFailed.of(issues))
}

const makeModifiers = Effect.gen(function*() {
  const repo = yield* ModifierRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog
  const record = (name: string, id: string, payload: Record<string, unknown>) =>
    emit({ name, entityType: "modifier", entityId: id, payload }).pipe(
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )
  const inTenant = tenantTransaction(uow)
  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("modifier", id))

  return withRecordIds(Modifiers.of({
    list: inTenant(repo.list),
    get: (id) => inTenant((organizationId) => find(organizationId, id)),
    create: (input) =>
      Effect.gen(function*() {
        const options = input.options ?? []
        yield* checkOptions(input.type, options)
        return yield* inTenant((organizationId) =>
          Effect.gen(function*() {
            const at = yield* now
            const modifier = new Modifier({
              id: yield* crypto.uuid,
              organizationId,
              code: input.code,
              name: input.name,
              type: input.type,
              options,
              createdAt: at,
              updatedAt: at
            })
            yield* repo.insert(modifier)
            yield* record("modifier.created", modifier.id, { code: modifier.code })
            return modifier
          })
        )
      }),
    update: (id, input) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("modifier", [id])
          const before = yield* find(organizationId, id)
          const after = new Modifier({
            ...before,
            code: input.code ?? before.code,
            name: input.name ?? before.name,
            type: input.type ?? before.type,
            options: input.options ?? before.options,
            updatedAt: yield* now
          })
          yield* checkOptions(after.type, after.options)
          const changed = (["code", "name", "type", "options"] as const).filter((k) => !sameJson(before[k], after[k]))
          yield* record("modifier.updated", id, { changed_fields: changed })
          if (changed.length === 0) return before
          yield* repo.update(after)
          return after
        })
      ),
    remove: (id) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("modifier", [id])
          const modifier = yield* find(organizationId, id)
          yield* repo.remove(organizationId, id)
          yield* record("modifier.deleted", id, { code: modifier.code })
        })
      )
  }), { get: ["modifier"], update: ["modifier"], remove: ["modifier"] })
})

export const ModifiersLive = Layer.effect(Modifiers, makeModifiers)
