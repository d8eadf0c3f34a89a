import { Context, Effect, Layer, Option } from "effect"
import { emit, eventServices } from "../events/EventLog.js"
import { Crypto } from "../shared/Crypto.js"
import { Conflict, NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { takenAs } from "../shared/Taken.js"
import { keepUnchanged } from "../shared/Unchangeable.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import type { CurrentTenant } from "../tenancy/Actor.js"
import type { AttributeRecord, EntityKind } from "./Attribute.js"
import { AttributeRepository } from "./AttributeRepository.js"
import { AttributeValueStore, usageTotal } from "./AttributeValueStore.js"
import { changeDefinitions } from "./DefinitionLock.js"
import {
  type AttachAttribute,
  type CreateFamily,
  Family,
  FamilyAttachment,
  FamilyDetails,
  isRequiredOverrideOf,
  type UpdateAttachment,
  type UpdateFamily
} from "./Family.js"
import { type AttachmentRecord, FamilyRepository, type FamilySchema } from "./FamilyRepository.js"
import { requestedOverride } from "./Requirements.js"
import { actorId, now, tenantTransaction } from "../shared/Tenant.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { isRecordId, withRecordIds } from "../shared/RecordIds.js"

/** The kinds whose one family is provisioned on first use instead of created. */
export type ProvisionedKind = "category" | "brand"

const isProvisionedKind = (kind: EntityKind): kind is ProvisionedKind => kind === "category" || kind === "brand"

export class Families extends Context.Tag("catalog/Families")<Families, {
  /** Families of one kind by code; for category and brand, provisions that schema first. */
  readonly list: (entityKind: EntityKind) => Effect.Effect<ReadonlyArray<Family>, never, CurrentTenant>
  /** Fails with ValidationFailed (`taken`) when the code is taken. */
  readonly create: (input: CreateFamily) => Effect.Effect<Family, ValidationFailed, CurrentTenant>
  /** The family with its attributes, by position then code. */
  readonly get: (id: string) => Effect.Effect<FamilyDetails, NotFound, CurrentTenant>
  readonly update: (id: string, input: UpdateFamily) => Effect.Effect<Family, NotFound | ValidationFailed, CurrentTenant>
  /** Fails with Conflict while a record still uses the family; attachments cascade. */
  readonly delete: (id: string) => Effect.Effect<void, NotFound | Conflict, CurrentTenant>
  /** Fails with NotFound (family or attribute) or ValidationFailed (another entity kind, or attached already). */
  readonly attach: (familyId: string, input: AttachAttribute) => Effect.Effect<FamilyAttachment, NotFound | ValidationFailed, CurrentTenant>
  readonly updateAttachment: (
    familyId: string,
    attributeId: string,
    input: UpdateAttachment
  ) => Effect.Effect<FamilyAttachment, NotFound | ValidationFailed, CurrentTenant>
  /** Idempotent: detaching an attribute that is not attached succeeds. */
  readonly detach: (familyId: string, attributeId: string) => Effect.Effect<void, NotFound, CurrentTenant>
  /**
   * The one family of `category` or `brand` with its attributes, provisioned (family plus a
   * `description` attribute) when the organization has none. Idempotent and safe under
   * concurrent first calls; joins the caller's transaction when there is one.
   */
  readonly provisioned: (entityKind: ProvisionedKind) => Effect.Effect<FamilySchema, never, CurrentTenant>
}>() {}

const toAttachment = (a: Pick<AttachmentRecord, "familyId" | "attributeId" | "requirementOverride" | "position">) =>
  new FamilyAttachment({
    familyId: a.familyId,
    attributeId: a.attributeId,
    requirementOverride: a.requirementOverride,
    isRequiredOverride: isRequiredOverrideOf(a.requirementOverride),
    position: a.position
  })

const PROVISIONED_LABELS: Record<ProvisionedKind, string> = { category: "Category", brand: "Brand" }

const makeFamilies = Effect.gen(function*() {
  const repo = yield* FamilyRepository
  const attributes = yield* AttributeRepository
  const values = yield* AttributeValueStore
  const crypto = yield* Crypto
  const uow = yield* UnitOfWork
  const tenant = tenantTransaction(uow)
  const services = yield* eventServices

  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("attribute family", id))

  const newFamily = (organizationId: string, code: string, entityKind: EntityKind, label: Readonly<Record<string, string>>, description: string | null) =>
    Effect.gen(function*() {
      const at = yield* now
      return new Family({ id: yield* crypto.uuid, organizationId, code, entityKind, label, description, createdAt: at, updatedAt: at })
    })

  const familyEvent = (name: string, family: Family, payload: Record<string, unknown> = {}) =>
    services(emit({ name, entityType: "family", entityId: family.id, payload: { code: family.code, ...payload } }))

  const attachmentEvent = (name: string, familyId: string, attributeId: string, payload: Record<string, unknown> = {}) =>
    services(emit({ name, entityType: "family_attribute", entityId: familyId, payload: { family_id: familyId, attribute_id: attributeId, ...payload } }))

  /** Inserts the kind's family and its description attribute unless the organization has the family. */
  const provision = (organizationId: string, kind: ProvisionedKind, actor: string | null) =>
    Effect.gen(function*() {
      const label = { en: PROVISIONED_LABELS[kind] }
      // The code is the kind, unless a family of another kind took it: then a fresh one.
      let family = yield* newFamily(organizationId, kind, kind, label, null)
      let inserted = yield* repo.insertProvisioned(family)
      if (!inserted && (yield* repo.list(organizationId, kind)).length === 0) {
        family = yield* newFamily(organizationId, `${kind}_${(yield* crypto.uuid).slice(-12)}`, kind, label, null)
        inserted = yield* repo.insertProvisioned(family)
      }
      if (!inserted) return
      yield* familyEvent("family.created", family, { entity_kind: kind })
      const at = yield* now
      const description: AttributeRecord = {
        id: yield* crypto.uuid,
        organizationId,
        code: "description",
        entityKind: kind,
        label: { en: "Description" },
        type: "textarea",
        groupId: null,
        isLocalizable: false,
        isScopable: false,
        requirement: "available",
        isVariantAxis: false,
        validation: null,
        defaultValue: null,
        position: 0,
        createdBy: actor,
        updatedBy: actor,
        createdAt: at,
        updatedAt: at
      }
      const stored = yield* attributes.insertIfAbsent(description)
      if (stored.inserted) {
        yield* services(emit({
          name: "attribute.created",
          entityType: "attribute",
          entityId: stored.attribute.id,
          payload: { code: "description", entity_kind: kind }
        }))
      }
      yield* repo.attachIfAbsent({
        organizationId,
        familyId: family.id,
        attributeId: stored.attribute.id,
        requirementOverride: null,
        position: 0,
        createdAt: at,
        updatedAt: at
      })
      yield* attachmentEvent("family_attribute.created", family.id, stored.attribute.id)
    })

  const list = (entityKind: EntityKind) =>
    tenant((organizationId, current) =>
      Effect.gen(function*() {
        if (isProvisionedKind(entityKind)) yield* provision(organizationId, entityKind, actorId(current.actor))
        return yield* repo.list(organizationId, entityKind)
      })
    )

  const provisioned = (kind: ProvisionedKind) =>
    tenant((organizationId, current) =>
      Effect.gen(function*() {
        yield* provision(organizationId, kind, actorId(current.actor))
        const [family] = yield* repo.list(organizationId, kind)
        const schema = family === undefined ? Option.none() : yield* repo.schemaOf(organizationId, family.id)
        if (Option.isNone(schema)) return yield* Effect.dieMessage(`the ${kind} family is missing after provisioning`)
        return schema.value
      })
    )

  const create = (input: CreateFamily) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        const family = yield* newFamily(organizationId, input.code, input.entityKind ?? "product", input.label, input.description ?? null)
        yield* repo.insert(family).pipe(takenAs(["code"], `the code ${family.code} is taken by another family`))
        yield* familyEvent("family.created", family, { entity_kind: family.entityKind })
        return family
      })
    )

  const get = (id: string) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        const family = yield* find(organizationId, id)
        const entries = yield* repo.entries(organizationId, id)
        return new FamilyDetails({ ...family, attributes: entries })
      })
    )

  const update = (id: string, input: UpdateFamily) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("family", [id])
        const before = yield* find(organizationId, id)
        yield* keepUnchanged([["code", input.code, before.code], ["entityKind", input.entityKind, before.entityKind]])
        const changed = (["label", "description"] as const).filter((k) => input[k] !== undefined && !sameJson(input[k], before[k]))
        yield* familyEvent("family.updated", before, { changed_fields: changed })
        if (changed.length === 0) return before
        const updated = yield* repo.update(organizationId, id, {
          ...(input.label !== undefined && changed.includes("label") ? { label: input.label } : {}),
          ...(input.description !== undefined && changed.includes("description") ? { description: input.description } : {}),
          updatedAt: yield* now
        })
        if (Option.isNone(updated)) return yield* new NotFound({ entity: "attribute family", id })
        return updated.value
      })
    )

  const remove = (id: string) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        // An update in flight, which may record its event without writing the row, comes first.
        yield* uow.lock("family", [id])
        const family = yield* find(organizationId, id)
        if (isProvisionedKind(family.entityKind)) {
          // Categories (brands) name no family: this one governs them all, and its deletion
          // would leave their values to none (the next write provisions it with a description alone).
          // Held as a schema change is, so no write of such values runs beside the count.
          yield* changeDefinitions(uow, organizationId)
          const schema = yield* repo.schemaOf(organizationId, id)
          let held = 0
          for (const a of Option.match(schema, { onNone: () => [], onSome: (s) => s.attributes })) {
            held += usageTotal(yield* values.usage(organizationId, family.entityKind, a.code))
          }
          if (held > 0) {
            return yield* new Conflict({ message: `family ${family.code} is still used: ${family.entityKind} records hold ${held} values of its attributes` })
          }
        }
        // A concurrent deletion may have taken it since: that one answered and recorded it.
        if (!(yield* repo.delete(organizationId, id))) return yield* new NotFound({ entity: "attribute family", id })
        yield* familyEvent("family.deleted", family)
      })
    )

  const attach = (familyId: string, input: AttachAttribute) =>
    Effect.gen(function*() {
      const override = yield* requestedOverride(input.requirementOverride, input.isRequiredOverride)
      return yield* tenant((organizationId) =>
        Effect.gen(function*() {
          // Remakes the index of products holding the attribute's values: product writes planned against the family before wait.
          yield* changeDefinitions(uow, organizationId)
          const family = yield* find(organizationId, familyId)
          const attribute = yield* attributes.findById(organizationId, input.attributeId).pipe(orNotFound("attribute", input.attributeId))
          if (attribute.entityKind !== family.entityKind) {
            return yield* ValidationFailed.one(
              ["attributeId"],
              `attribute ${attribute.code} is a ${attribute.entityKind} attribute; family ${family.code} takes ${family.entityKind} attributes`,
              "entity_kind_mismatch"
            )
          }
          const at = yield* now
          const record: AttachmentRecord = {
            organizationId,
            familyId,
            attributeId: attribute.id,
            requirementOverride: override ?? null,
            position: input.position ?? 0,
            createdAt: at,
            updatedAt: at
          }
          yield* repo.attach(record).pipe(
            takenAs(["attributeId"], `attribute ${attribute.code} is already attached to family ${family.code}`, "already_attached")
          )
          yield* attachmentEvent("family_attribute.created", familyId, attribute.id, { code: attribute.code })
          return toAttachment(record)
        })
      )
    })

  const updateAttachment = (familyId: string, attributeId: string, input: UpdateAttachment) =>
    Effect.gen(function*() {
      const override = yield* requestedOverride(input.requirementOverride, input.isRequiredOverride)
      return yield* tenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("family", [familyId])
          yield* find(organizationId, familyId)
          const before = (yield* repo.entries(organizationId, familyId)).find((e) => e.attributeId === attributeId)
          if (before === undefined) return yield* new NotFound({ entity: "family attribute", id: attributeId })
          const changed = [
            ...(override === undefined || override === before.requirementOverride ? [] : ["requirementOverride"]),
            ...(input.position === undefined || input.position === before.position ? [] : ["position"])
          ]
          yield* attachmentEvent("family_attribute.updated", familyId, attributeId, { changed_fields: changed })
          if (changed.length === 0) return toAttachment(before)
          const updated = yield* repo.updateAttachment(organizationId, familyId, attributeId, {
            ...(changed.includes("requirementOverride") ? { requirementOverride: override ?? null } : {}),
            ...(input.position !== undefined && changed.includes("position") ? { position: input.position } : {}),
            updatedAt: yield* now
          })
          if (Option.isNone(updated)) return yield* new NotFound({ entity: "family attribute", id: attributeId })
          return toAttachment(updated.value)
        })
      )
    })

  const detach = (familyId: string, attributeId: string) =>
    tenant((organizationId) =>
      Effect.gen(function*() {
        // The family first, as its deletion takes them: an attachment's update in flight comes first.
        yield* uow.lock("family", [familyId])
        yield* changeDefinitions(uow, organizationId)
        yield* find(organizationId, familyId)
        // Detaching what is not attached does nothing, an id no attribute can have included.
        if (isRecordId(attributeId) && (yield* repo.detach(organizationId, familyId, attributeId))) {
          yield* attachmentEvent("family_attribute.deleted", familyId, attributeId)
        }
      })
    )

  return withRecordIds(Families.of({ list, create, get, update, delete: remove, attach, updateAttachment, detach, provisioned }), {
    get: ["attribute family"],
    update: ["attribute family"],
    delete: ["attribute family"],
    attach: ["attribute family"],
    updateAttachment: ["attribute family", "family attribute"],
    detach: ["attribute family"]
  })
})

export const FamiliesLive = Layer.effect(Families, makeFamilies)
