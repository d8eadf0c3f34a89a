import { Context, Effect, Layer } from "effect"
import { emit, eventServices } from "../events/EventLog.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { holdDefinitions } from "../schema/DefinitionLock.js"
import { Families } from "../schema/Families.js"
import { actorId, now } from "../shared/Tenant.js"
import { Conflict, type NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { Crypto } from "../shared/Crypto.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { Category, type CreateCategory, type ListCategoriesQuery, type UpdateCategory } from "./Category.js"
import { CategoryRepository } from "./CategoryRepository.js"
import { writeEntityAttributes } from "./EntityAttributes.js"
import { retryGeneratedSlug } from "./GeneratedSlug.js"
import { freeSlug } from "./Slugs.js"
import { PatternTimer } from "../schema/PatternTimer.js"
import { attributeChanges } from "../products/ProductValues.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Categories extends Context.Tag("catalog/Categories")<Categories, {
  readonly list: (query: ListCategoriesQuery) => Effect.Effect<ReadonlyArray<Category>, never, CurrentTenant>
  readonly create: (input: CreateCategory) => Effect.Effect<Category, ValidationFailed | Conflict, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<Category, NotFound, CurrentTenant>
  /** A move under itself or one of its descendants is refused (422). */
  readonly update: (id: string, patch: UpdateCategory) => Effect.Effect<Category, NotFound | ValidationFailed | Conflict, CurrentTenant>
  /** Refused (409) while the category has children; its products lose the assignment. */
  readonly delete: (id: string) => Effect.Effect<void, NotFound | Conflict, CurrentTenant>
}>() {}

const makeCategories = Effect.gen(function*() {
  const repo = yield* CategoryRepository
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
    repo.findById(organizationId, id).pipe(orNotFound("category", id))

  const checkParent = (organizationId: string, parentId: string) =>
    Effect.flatMap(repo.existing(organizationId, [parentId]), (found) =>
      found.has(parentId) ? Effect.void : Effect.fail(ValidationFailed.one(["parentId"], `category ${parentId} does not exist`, "unknown_category")))

  const slugTaken = (slug: string) => new Conflict({ message: `category slug ${slug} is taken` })

  const list = (query: ListCategoriesQuery) => inTenant((organizationId) => repo.list(organizationId, query))

  const create = (input: CreateCategory) =>
    retryGeneratedSlug(input.slug === undefined, inTenant((organizationId, actor) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        const id = yield* crypto.uuid
        if (input.parentId) {
          yield* repo.lockTree(organizationId)
          yield* checkParent(organizationId, input.parentId)
        }
        const { values } = yield* writeEntityAttributes(families, media, timer, organizationId, "category", {}, input.attributes)
        const slug = input.slug ?? (yield* freeSlug(input.name, id, "category", (s) => repo.slugsTaken(organizationId, s)))
        const at = yield* now
        const category = new Category({
          id,
          organizationId,
          parentId: input.parentId ?? null,
          name: input.name,
          slug,
          position: input.position ?? 0,
          attributes: values,
          createdBy: actor,
          updatedBy: actor,
          createdAt: at,
          updatedAt: at
        })
        yield* repo.insert(category).pipe(Effect.mapError(() => slugTaken(slug)))
        yield* emit({ name: "category.created", entityType: "category", entityId: id, payload: { slug } })
        return category
      })
    ))

  const get = (id: string) => inTenant((organizationId) => find(organizationId, id))

  const update = (id: string, patch: UpdateCategory) =>
    inTenant((organizationId, actor) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        yield* uow.lock("category", [id])
        const current = yield* find(organizationId, id)
        if (patch.parentId !== undefined && patch.parentId !== null && patch.parentId !== current.parentId) {
          yield* repo.lockTree(organizationId)
          if (patch.parentId === id) return yield* ValidationFailed.one(["parentId"], "a category cannot be its own parent", "cycle")
          yield* checkParent(organizationId, patch.parentId)
          const above = yield* repo.ancestors(organizationId, patch.parentId)
          if (above.includes(id)) {
            return yield* ValidationFailed.one(["parentId"], "a category cannot move under one of its descendants", "cycle")
          }
        }
        const { values, touched } = yield* writeEntityAttributes(families, media, timer, organizationId, "category", current.attributes, patch.attributes)
        const next = new Category({
          ...current,
          name: patch.name ?? current.name,
          slug: patch.slug ?? current.slug,
          parentId: patch.parentId === undefined ? current.parentId : patch.parentId,
          position: patch.position ?? current.position,
          attributes: values,
          updatedBy: actor,
          updatedAt: yield* now
        })
        const changed = [
          ...(["name", "slug", "parentId", "position"] as const).filter((k) => next[k] !== current[k]),
          ...attributeChanges(touched)
        ]
        yield* emit({ name: "category.updated", entityType: "category", entityId: id, payload: { changed_fields: changed } })
        if (changed.length === 0) return current
        yield* repo.update(next).pipe(Effect.mapError(() => slugTaken(next.slug)))
        return next
      })
    )

  const remove = (id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("category", [id])
        const current = yield* find(organizationId, id)
        yield* repo.lockTree(organizationId)
        if (yield* repo.hasChildren(organizationId, id)) {
          return yield* new Conflict({ message: `category ${id} has child categories; move or delete them first` })
        }
        // The one signal for the products it unfiles too, as for a brand's deletion.
        // Stamped once the products are held: a batch it waited for is never stamped later.
        yield* repo.holdForDeletion(organizationId, id)
        const products = yield* repo.delete(organizationId, id, yield* now)
        yield* emit({ name: "category.deleted", entityType: "category", entityId: id, payload: { slug: current.slug, removed_from: { products } } })
      })
    )

  return withRecordIds(Categories.of({ list, create, get, update, delete: remove }), { get: ["category"], update: ["category"], delete: ["category"] })
})

export const CategoriesLive = Layer.effect(Categories, makeCategories)
