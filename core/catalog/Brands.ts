import { Context, Effect, Layer } from "effect"
import { emit, eventServices } from "../events/EventLog.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { holdDefinitions } from "../schema/DefinitionLock.js"
import { Families } from "../schema/Families.js"
import { actorId, now } from "../shared/Tenant.js"
import { type Conflict, type NotFound, orNotFound, type ValidationFailed } from "../shared/Errors.js"
import { Crypto } from "../shared/Crypto.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { Brand, type CreateBrand, type ListBrandsQuery, type UpdateBrand } from "./Brand.js"
import { BrandRepository } from "./BrandRepository.js"
import { freeSlug } from "./Slugs.js"
import { writeEntityAttributes } from "./EntityAttributes.js"
import { retryGeneratedSlug } from "./GeneratedSlug.js"
import { PatternTimer } from "../schema/PatternTimer.js"
import { attributeChanges } from "../products/ProductValues.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Brands extends Context.Tag("catalog/Brands")<Brands, {
  readonly list: (query: ListBrandsQuery) => Effect.Effect<ReadonlyArray<Brand>, never, CurrentTenant>
  /** Fails with Conflict when the name (ignoring case) or the slug is taken. */
  readonly create: (input: CreateBrand) => Effect.Effect<Brand, ValidationFailed | Conflict, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Brand, NotFound, CurrentTenant>
  readonly update: (id: string, patch: UpdateBrand) => Effect.Effect<Brand, NotFound | ValidationFailed | Conflict, CurrentTenant>
  /** Its products lose the brand. */
  readonly delete: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
}>() {}

const makeBrands = Effect.gen(function*() {
  const repo = yield* BrandRepository
  const families = yield* Families
  const media = yield* MediaRepository
  const timer = yield* PatternTimer
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const services = yield* eventServices
  const inTenant = <A, E, R>(f: (organizationId: string, actor: string | null) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(CurrentTenant, (t) =>
      uow.tenant(t.organizationId, f(t.organizationId, actorId(t.actor)).pipe(services)))

  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("brand", id))

  const list = (query: ListBrandsQuery) => inTenant((organizationId) => repo.list(organizationId, query))

  const create = (input: CreateBrand) =>
    retryGeneratedSlug(input.slug === undefined, inTenant((organizationId, actor) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        const id = yield* crypto.uuid
        const { values } = yield* writeEntityAttributes(families, media, timer, organizationId, "brand", {}, input.attributes)
        const slug = input.slug ?? (yield* freeSlug(input.name, id, "brand", (s) => repo.slugsTaken(organizationId, s)))
        const at = yield* now
        const brand = new Brand({
          id,
          organizationId,
          name: input.name,
          slug,
          attributes: values,
          createdBy: actor,
          updatedBy: actor,
          createdAt: at,
          updatedAt: at
        })
        yield* repo.insert(brand)
        yield* emit({ name: "brand.created", entityType: "brand", entityId: id, payload: { slug } })
        return brand
      })
    ))

  const get = (id: string) => inTenant((organizationId) => find(organizationId, id))

  const update = (id: string, patch: UpdateBrand) =>
    inTenant((organizationId, actor) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        yield* uow.lock("brand", [id])
        const current = yield* find(organizationId, id)
        const { values, touched } = yield* writeEntityAttributes(families, media, timer, organizationId, "brand", current.attributes, patch.attributes)
        const next = new Brand({
          ...current,
          name: patch.name ?? current.name,
          slug: patch.slug ?? current.slug,
          attributes: values,
          updatedBy: actor,
          updatedAt: yield* now
        })
        const changed = [
          ...(["name", "slug"] as const).filter((k) => next[k] !== current[k]),
          ...attributeChanges(touched)
        ]
        yield* emit({ name: "brand.updated", entityType: "brand", entityId: id, payload: { changed_fields: changed } })
        if (changed.length === 0) return current
        yield* repo.update(next)
        return next
      })
    )

  const remove = (id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("brand", [id])
        const current = yield* find(organizationId, id)
        // The one signal for the products it changes too, as an attribute's deletion is: no
        // product.updated each, which a brand on every product would make a flood of.
        // Stamped once the products are held: a batch it waited for is never stamped later.
        yield* repo.holdForDeletion(organizationId, id)
        const products = yield* repo.delete(organizationId, id, yield* now)
        yield* emit({ name: "brand.deleted", entityType: "brand", entityId: id, payload: { slug: current.slug, removed_from: { products } } })
      })
    )

  return withRecordIds(Brands.of({ list, create, get, update, delete: remove }), { get: ["brand"], update: ["brand"], delete: ["brand"] })
})

export const BrandsLive = Layer.effect(Brands, makeBrands)
