import { Context, Effect, Either, Layer, Option } from "effect"
import { emit, EventLog } from "../events/EventLog.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { checkMediaValues } from "../media/MediaValues.js"
import { ProductRepository } from "../products/ProductRepository.js"
import { attributeChanges, mergeValues, splitUndeclaredRemovals, withoutRemovals } from "../products/ProductValues.js"
import { requireProduct } from "../products/RequireProduct.js"
import type { AttributeValues } from "../schema/AttributeValues.js"
import { holdDefinitions } from "../schema/DefinitionLock.js"
import { FamilyRepository } from "../schema/FamilyRepository.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { Crypto } from "../shared/Crypto.js"
import { Conflict, NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { positionAfter } from "../shared/Fields.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { OrganizationRepository } from "../tenancy/OrganizationRepository.js"
import { type CreateVariant, type UpdateVariant, Variant, VariantList } from "./Variant.js"
import { axesOf, axisKey, missingAxes } from "./VariantAxes.js"
import { VariantRepository } from "./VariantRepository.js"
import { defaultScope } from "../tenancy/Organization.js"
import { PatternTimer, valueChecks } from "../schema/PatternTimer.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Variants extends Context.Tag("catalog/Variants")<Variants, {
  readonly list: (
    productId: string,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<VariantList, NotFound, CurrentTenant>
  readonly get: (productId: string, id: string) => Effect.Effect<Variant, NotFound, CurrentTenant>
  /** Fails with Conflict on a taken SKU or an axis combination the product already has. */
  readonly create: (productId: string, input: CreateVariant) => Effect.Effect<Variant, NotFound | ValidationFailed | Conflict, CurrentTenant>
  readonly update: (
    productId: string,
    id: string,
    input: UpdateVariant
  ) => Effect.Effect<Variant, NotFound | ValidationFailed | Conflict, CurrentTenant>
  readonly remove: (productId: string, id: string) => Effect.Effect<void, NotFound, CurrentTenant>
}>() {}

const makeVariants = Effect.gen(function*() {
  const repo = yield* VariantRepository
  const products = yield* ProductRepository
  const families = yield* FamilyRepository
  const organizations = yield* OrganizationRepository
  const media = yield* MediaRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const timer = yield* PatternTimer
  const events = yield* EventLog

  const record = (name: string, id: string, payload: Record<string, unknown>) =>
    emit({ name, entityType: "variant", entityId: id, payload }).pipe(
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )
  const inTenant = tenantTransaction(uow)

  const find = (organizationId: string, productId: string, id: string) =>
    repo.find(organizationId, productId, id).pipe(orNotFound("variant", id))

  /** The product's family as variants see it: specs, axes and the organization's default scope. */
  const contextOf = (organizationId: string, familyId: string) =>
    Effect.gen(function*() {
      const schema = yield* families.schemaOf(organizationId, familyId)
      const attributes = Option.match(schema, { onNone: () => [], onSome: (s) => s.attributes })
      const settings = Option.getOrNull(yield* organizations.findById(organizationId))?.organization.settings ?? null
      return {
        specs: new Map(attributes.map((a) => [a.code, a])),
        axes: axesOf(attributes),
        scope: defaultScope(settings)
      }
    })

  /** Axes filled, and no sibling with the same combination; answers the combination's key. */
  const checkAxes = (
    organizationId: string,
    productId: string,
    context: Effect.Effect.Success<ReturnType<typeof contextOf>>,
    values: AttributeValues,
    exceptId: string | undefined
  ) =>
    Effect.gen(function*() {
      const missing = missingAxes(context.axes, values, context.scope)
      if (missing.length > 0) return yield* ValidationFailed.of(missing)
      const key = axisKey(context.axes, values)
      if (key === null) return key
      const siblings = yield* repo.ofProduct(organizationId, productId)
      if (siblings.some((s) => s.id !== exceptId && axisKey(context.axes, s.attributes) === key)) {
        return yield* new Conflict({ message: `another variant of product ${productId} has the same ${context.axes.map((a) => a.code).join(", ")}` })
      }
      return key
    })

  const ensureSkuFree = (organizationId: string, sku: string, exceptId?: string) =>
    Effect.flatMap(repo.skuTaken(organizationId, sku, exceptId), (taken) =>
      taken ? Effect.fail(new Conflict({ message: `sku ${sku} is taken` })) : Effect.void)

  const validated = (
    organizationId: string,
    context: Effect.Effect.Success<ReturnType<typeof contextOf>>,
    input: Readonly<Record<string, unknown>>,
    stored?: AttributeValues
  ) => {
    const checked = valueChecks(timer).values(context.specs, input, ["attributes"], stored)
    return Either.isLeft(checked)
      ? Effect.fail(ValidationFailed.of(checked.left))
      : Effect.as(checkMediaValues(media, organizationId, context.specs, checked.right, stored), checked.right)
  }

  const create = (productId: string, input: CreateVariant) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        // Creates under one product wait for each other, so each default position is one past the last.
        yield* uow.lock("product", [productId])
        const product = yield* requireProduct(products, organizationId, productId)
        const context = yield* contextOf(organizationId, product.familyId)
        const values = withoutRemovals(yield* validated(organizationId, context, input.attributes ?? {}))
        const key = yield* checkAxes(organizationId, productId, context, values, undefined)
        yield* ensureSkuFree(organizationId, input.sku)
        const siblings = yield* repo.ofProduct(organizationId, productId)
        const at = yield* now
        const variant = new Variant({
          id: yield* crypto.uuid,
          organizationId,
          productId,
          sku: input.sku,
          name: input.name ?? input.sku,
          status: input.status ?? "draft",
          attributes: values,
          position: input.position ?? siblings.reduce((max, s) => Math.max(max, positionAfter(s.position)), 0),
          createdAt: at,
          updatedAt: at
        }, true)
        yield* repo.insert({ variant, axisKey: key })
        yield* record("variant.created", variant.id, { productId, sku: variant.sku })
        return variant
      })
    )

  const update = (productId: string, id: string, input: UpdateVariant) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        yield* uow.lock("variant", [id])
        const product = yield* requireProduct(products, organizationId, productId)
        const current = yield* find(organizationId, productId, id)
        const context = yield* contextOf(organizationId, product.familyId)
        let values: AttributeValues = current.attributes
        let touched: ReadonlyArray<string> = []
        if (input.attributes !== undefined) {
          const { declared, removals } = splitUndeclaredRemovals(context.specs, current.attributes, input.attributes)
          const merged = mergeValues(current.attributes, { ...(yield* validated(organizationId, context, declared, current.attributes)), ...removals })
          values = merged.merged
          touched = merged.touched
        }
        // Values left alone keep their stored combination: the family may have gained an axis since.
        const key = touched.length > 0 ? yield* checkAxes(organizationId, productId, context, values, id) : undefined
        if (input.sku !== undefined && input.sku !== current.sku) yield* ensureSkuFree(organizationId, input.sku, id)
        const next = new Variant({
          ...current,
          sku: input.sku ?? current.sku,
          name: input.name ?? current.name,
          status: input.status ?? current.status,
          position: input.position ?? current.position,
          attributes: values,
          updatedAt: yield* now
        }, true)
        const changed = [
          ...(["sku", "name", "status", "position"] as const).filter((k) => next[k] !== current[k]),
          ...attributeChanges(touched)
        ]
        yield* record("variant.updated", id, { productId, changed_fields: changed })
        if (changed.length === 0) return current
        // The product's deletion takes its variants without their locks: one that committed while
        // this ran leaves no row to rewrite, and nothing was written.
        if (!(yield* repo.update(key === undefined ? { variant: next } : { variant: next, axisKey: key }))) {
          return yield* new NotFound({ entity: "variant", id })
        }
        return next
      })
    )

  return withRecordIds(Variants.of({
    list: (productId, page) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* requireProduct(products, organizationId, productId)
          const { hasMore, variants } = yield* repo.page(organizationId, productId, page)
          return new VariantList({ data: variants, limit: page.limit, offset: page.offset, hasMore }, true)
        })
      ),
    get: (productId, id) =>
      inTenant((organizationId) => Effect.zipRight(requireProduct(products, organizationId, productId), find(organizationId, productId, id))),
    create,
    update,
    remove: (productId, id) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("variant", [id])
          yield* requireProduct(products, organizationId, productId)
          const variant = yield* find(organizationId, productId, id)
          if (!(yield* repo.remove(organizationId, productId, id))) return yield* new NotFound({ entity: "variant", id })
          yield* record("variant.deleted", id, { productId, sku: variant.sku })
        })
      )
  }), { list: ["product"], get: ["product", "variant"], create: ["product"], update: ["product", "variant"], remove: ["product", "variant"] })
})

export const VariantsLive = Layer.effect(Variants, makeVariants)
