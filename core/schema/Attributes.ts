import { Context, Effect, Either, Layer, Option } from "effect"
import { emit, eventServices } from "../events/EventLog.js"
import { Crypto } from "../shared/Crypto.js"
import { type Issue, NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { takenAs } from "../shared/Taken.js"
import { keepUnchanged } from "../shared/Unchangeable.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import type { CurrentTenant } from "../tenancy/Actor.js"
import {
  type Attribute,
  type AttributeRecord,
  AttributeUsage,
  type CreateAttribute,
  type EntityKind,
  toAttribute,
  type UpdateAttribute
} from "./Attribute.js"
import { type AttributeChanges, AttributeRepository } from "./AttributeRepository.js"
import { AttributeValueStore, usageTotal, type ValueScope } from "./AttributeValueStore.js"
import { changeDefinitions } from "./DefinitionLock.js"
import { requestedRequirement } from "./Requirements.js"
import { actorId, now, tenantTransaction } from "../shared/Tenant.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { PatternTimer, valueChecks } from "./PatternTimer.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { ruleIssues } from "./RuleShapes.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Attributes extends Context.Tag("catalog/Attributes")<Attributes, {
  /** The organization's attributes of one entity kind, by position then code. */
  readonly list: (entityKind: EntityKind) => Effect.Effect<ReadonlyArray<Attribute>, never, CurrentTenant>
  /** Fails with ValidationFailed (`taken`) when the code is taken for the entity kind. */
  readonly create: (input: CreateAttribute) => Effect.Effect<Attribute, ValidationFailed, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Attribute, NotFound, CurrentTenant>
  /**
   * A new code carries the stored values along; the type cannot change while records hold
   * values, nor `isLocalizable` (`isScopable`) turn off while they hold values at a locale (channel).
   */
  readonly update: (id: string, input: UpdateAttribute) => Effect.Effect<Attribute, NotFound | ValidationFailed, CurrentTenant>
  /**
   * In one transaction: the definition, its family attachments and every value stored under
   * its code on records of its kind (their `updatedAt` bumped), with `attribute.deleted`
   * carrying the rows changed per table in `removed_from`.
   */
  readonly delete: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
  /** How many records hold a value under the attribute's code: what `delete` would remove. */
  readonly usage: (id: string) => Effect.Effect<AttributeUsage, NotFound, CurrentTenant>
}>() {}

/** The flags that let values carry a locale or a channel, with the entry key each governs. */
const SCOPE_FLAGS: ReadonlyArray<readonly ["isLocalizable" | "isScopable", ValueScope]> = [["isLocalizable", "locale"], ["isScopable", "channel"]]

/**
 * The default value must itself be a valid value of the attribute, and is kept as a value
 * would be (a decimal as its string, ids lower-case).
 */
type DefaultOf = Pick<AttributeRecord, "code" | "type" | "isLocalizable" | "isScopable" | "validation" | "defaultValue">

/** The default as stored, or the issues that refuse it. */
const defaultAsStored = (timer: typeof PatternTimer.Service, a: DefaultOf): Either.Either<unknown, ReadonlyArray<Issue>> =>
  a.defaultValue === null || a.defaultValue === undefined
    ? Either.right(null)
    : valueChecks(timer).value(a, a.defaultValue, ["defaultValue"])

const checkedDefault = (timer: typeof PatternTimer.Service, a: DefaultOf) =>
  Either.match(defaultAsStored(timer, a), {
    onLeft: (issues) => Effect.fail(ValidationFailed.of(issues)),
    onRight: (value): Effect.Effect<unknown, ValidationFailed> => Effect.succeed(value)
  })

/** Honoured rules must be readable (see `ruleIssues`); the other keys are free-form, kept as sent. */
const checkRules = (validation: Readonly<Record<string, unknown>> | null | undefined) => {
  const issues = ruleIssues(validation)
  return issues.length > 0 ? Effect.fail(ValidationFailed.of(issues)) : Effect.void
}

const makeAttributes = Effect.gen(function*() {
  const repo = yield* AttributeRepository
  const values = yield* AttributeValueStore
  const crypto = yield* Crypto
  const timer = yield* PatternTimer
  const media = yield* MediaRepository

  /** A `media` or `file` default must name a media record of the organization, as such a value must. */
  const checkDefaultMedia = (organizationId: string, a: Pick<AttributeRecord, "type" | "defaultValue">) => {
    const id = a.defaultValue
    return (a.type === "media" || a.type === "file") && typeof id === "string"
      ? Effect.flatMap(media.existing(organizationId, [id]), (known) =>
        known.has(id) ? Effect.void : Effect.fail(ValidationFailed.one(["defaultValue"], `media ${id} does not exist`, "unknown_media")))
      : Effect.void
  }
  const uow = yield* UnitOfWork
  const tenant = tenantTransaction(uow)
  const services = yield* eventServices

  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("attribute", id))

  const checkGroup = (organizationId: string, groupId: string | null | undefined) =>
    groupId === null || groupId === undefined ? Effect.void : Effect.flatMap(repo.findGroup(organizationId, groupId), Option.match({
      onNone: () => Effect.fail(ValidationFailed.one(["groupId"], `no attribute group ${groupId}`, "not_found")),
      onSome: () => Effect.void
    }))

  const create = (input: CreateAttribute) =>
    Effect.gen(function*() {
      yield* checkRules(input.validation)
      const requirement = yield* requestedRequirement(input.requirement, input.isRequired)
      return yield* tenant((organizationId, current) =>
        Effect.gen(function*() {
          yield* checkGroup(organizationId, input.groupId)
          const at = yield* now
          const by = actorId(current.actor)
          const sent: AttributeRecord = {
            id: yield* crypto.uuid,
            organizationId,
            code: input.code,
            entityKind: input.entityKind ?? "product",
            label: input.label,
            type: input.type,
            groupId: input.groupId ?? null,
            isLocalizable: input.isLocalizable ?? false,
            isScopable: input.isScopable ?? false,
            requirement: requirement ?? "available",
            isVariantAxis: input.isVariantAxis ?? false,
            validation: input.validation ?? null,
            defaultValue: input.defaultValue ?? null,
            position: input.position ?? 0,
            createdBy: by,
            updatedBy: by,
            createdAt: at,
            updatedAt: at
          }
          const record: AttributeRecord = { ...sent, defaultValue: yield* checkedDefault(timer, sent) }
          yield* checkDefaultMedia(organizationId, record)
          yield* repo.insert(record).pipe(takenAs(["code"], `the code ${record.code} is taken by another ${record.entityKind} attribute`))
          yield* services(emit({
            name: "attribute.created",
            entityType: "attribute",
            entityId: record.id,
            payload: { code: record.code, entity_kind: record.entityKind }
          }))
          return toAttribute(record)
        })
      )
    })

  const update = (id: string, input: UpdateAttribute) =>
    Effect.gen(function*() {
      yield* checkRules(input.validation)
      const requirement = yield* requestedRequirement(input.requirement, input.isRequired)
      return yield* tenant((organizationId, current) =>
        Effect.gen(function*() {
          // A new code or type rewrites or refuses the values stored under the old ones.
          yield* changeDefinitions(uow, organizationId)
          const existing = yield* find(organizationId, id)
          yield* keepUnchanged([["entityKind", input.entityKind, existing.entityKind]])
          yield* checkGroup(organizationId, input.groupId)
          const { entityKind: _kind, isRequired: _isRequired, requirement: _requirement, ...fields } = input
          const sent: { readonly [K in keyof AttributeRecord]?: AttributeRecord[K] | undefined } = {
            ...fields,
            ...(requirement === undefined ? {} : { requirement })
          }
          const asSent: AttributeRecord = { ...existing, ...Object.fromEntries(Object.entries(sent).filter(([, v]) => v !== undefined)) }
          // Compared as stored, so a default sent again as `1.5` or an upper-case id is no change.
          // A refused default is listed with the refusals below, not alone.
          const storedDefault = defaultAsStored(timer, asSent)
          const merged: AttributeRecord = { ...asSent, defaultValue: Either.getOrElse(storedDefault, () => asSent.defaultValue) }
          const changed = (Object.keys(sent) as Array<keyof AttributeRecord>).filter((k) =>
            sent[k] !== undefined && !sameJson(merged[k], existing[k])
          )
          // A new type stores the default as a value of that type is stored (a number as a
          // decimal's string, an id lower-case), whether or not the default was sent again.
          if (!changed.includes("defaultValue") && !sameJson(merged.defaultValue, existing.defaultValue)) changed.push("defaultValue")
          // A new code rewrites the records holding the values: held before the event reads the
          // instant, so they are stamped after writes to them in flight.
          if (changed.includes("code")) yield* values.hold(organizationId, existing.entityKind, existing.code)
          yield* services(emit({ name: "attribute.updated", entityType: "attribute", entityId: id, payload: { code: merged.code, changed_fields: changed } }))
          if (changed.length === 0 && Either.isRight(storedDefault)) return toAttribute(existing)
          const at = yield* now
          // Only a default sent again or retyped is looked up: its media may have been deleted since.
          if (Either.isRight(storedDefault) && (changed.includes("defaultValue") || changed.includes("type"))) {
            yield* checkDefaultMedia(organizationId, merged)
          }
          const refusals: Array<Issue> = Either.isLeft(storedDefault) ? [...storedDefault.left] : []
          if (changed.includes("type")) {
            const held = usageTotal(yield* values.usage(organizationId, existing.entityKind, existing.code))
            if (held > 0) refusals.push({ path: ["type"], message: `cannot change while ${held} records hold values of ${existing.code}`, code: "in_use" })
          }
          // Values at a locale (channel) would contradict a flag that now asks for null there.
          for (const [flag, scope] of SCOPE_FLAGS) {
            if (!changed.includes(flag) || merged[flag]) continue
            const held = usageTotal(yield* values.scopedUsage(organizationId, existing.entityKind, existing.code, scope))
            if (held > 0) {
              refusals.push({ path: [flag], message: `cannot turn off while ${held} records hold values of ${existing.code} at a ${scope}`, code: "in_use" })
            }
          }
          if (refusals.length > 0) return yield* ValidationFailed.of(refusals)
          const changes: AttributeChanges = {
            ...Object.fromEntries(changed.map((k) => [k, merged[k]])),
            updatedAt: at,
            updatedBy: actorId(current.actor)
          }
          const updated = yield* repo.update(organizationId, id, changes).pipe(
            takenAs(["code"], `the code ${merged.code} is taken by another ${existing.entityKind} attribute`)
          )
          if (Option.isNone(updated)) return yield* new NotFound({ entity: "attribute", id })
          if (changed.includes("code")) yield* values.rename(organizationId, existing.entityKind, existing.code, merged.code, at)
          return toAttribute(updated.value)
        })
      )
    })

  const remove = (id: string) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        yield* changeDefinitions(uow, organizationId)
        const existing = yield* find(organizationId, id)
        // The records losing the value are held first, so they are stamped after writes to them in flight.
        yield* values.hold(organizationId, existing.entityKind, existing.code)
        const at = yield* now
        const removed = yield* values.remove(organizationId, existing.entityKind, existing.code, at)
        yield* repo.delete(organizationId, id)
        yield* services(emit({
          name: "attribute.deleted",
          entityType: "attribute",
          entityId: id,
          payload: { code: existing.code, entity_kind: existing.entityKind, removed_from: { ...removed } }
        }))
      })
    )

  const usage = (id: string) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        const existing = yield* find(organizationId, id)
        const u = yield* values.usage(organizationId, existing.entityKind, existing.code)
        return new AttributeUsage({ ...u, total: usageTotal(u) })
      })
    )

  return withRecordIds(Attributes.of({
    list: (entityKind) => tenant((organizationId) => Effect.map(repo.list(organizationId, entityKind), (r) => r.map(toAttribute))),
    create,
    get: (id) => tenant((organizationId) => Effect.map(find(organizationId, id), toAttribute)),
    update,
    delete: remove,
    usage
  }), { get: ["attribute"], update: ["attribute"], delete: ["attribute"], usage: ["attribute"] })
})

export const AttributesLive = Layer.effect(Attributes, makeAttributes)
