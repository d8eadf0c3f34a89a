import { Context, Effect, Either, Layer, Option } from "effect"
import { retryGeneratedSlug } from "../catalog/GeneratedSlug.js"
import { freeSlug } from "../catalog/Slugs.js"
import { emit, EventLog } from "../events/EventLog.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { checkMediaValues } from "../media/MediaValues.js"
import type { AttributeSpec, AttributeValues } from "../schema/AttributeValues.js"
import { holdDefinitions } from "../schema/DefinitionLock.js"
import { FamilyRepository, type FamilySchema } from "../schema/FamilyRepository.js"
import { now } from "../shared/Tenant.js"
import { CatalogSettings } from "../shared/CatalogSettings.js"
import { Crypto } from "../shared/Crypto.js"
import { Conflict, Forbidden, type Issue, type NotFound, orNotFound, ValidationFailed } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { contentPagesFeature, isUsable } from "../tenancy/Features.js"
import { OrganizationRepository } from "../tenancy/OrganizationRepository.js"
import { attributeChanges, inCodeOrder, mergeValues, missingRequired, splitUndeclaredRemovals, withoutRemovals } from "../products/ProductValues.js"
import { ContentPage, ContentPageList, type ContentPageFilter, type CreateContentPage, type UpdateContentPage } from "./ContentPage.js"
import { ContentPageRepository } from "./ContentPageRepository.js"
import { defaultScope } from "../tenancy/Organization.js"
import { PatternTimer, valueChecks } from "../schema/PatternTimer.js"
import { withRecordIds } from "../shared/RecordIds.js"

type Failure = ValidationFailed | Conflict | Forbidden

export class ContentPages extends Context.Tag("catalog/ContentPages")<ContentPages, {
  /** Fails with Forbidden unless the organization may use content pages (entitled and enabled). */
  readonly ensureEnabled: Effect.Effect<void, Forbidden, CurrentTenant>
  readonly list: (filter: ContentPageFilter) => Effect.Effect<ContentPageList, Forbidden, CurrentTenant>
  readonly get: (id: string) => Effect.Effect<ContentPage, NotFound | Forbidden, CurrentTenant>
  readonly create: (input: CreateContentPage) => Effect.Effect<ContentPage, Failure, CurrentTenant>
  readonly update: (id: string, input: UpdateContentPage) => Effect.Effect<ContentPage, NotFound | Failure, CurrentTenant>
  readonly remove: (id: string) => Effect.Effect<void, NotFound | Forbidden, CurrentTenant>
}>() {}

const specsOf = (schema: FamilySchema): ReadonlyMap<string, AttributeSpec> => new Map(schema.attributes.map((a) => [a.code, a]))

const makeContentPages = Effect.gen(function*() {
  const repo = yield* ContentPageRepository
  const families = yield* FamilyRepository
  const organizations = yield* OrganizationRepository
  const media = yield* MediaRepository
  const settings = yield* CatalogSettings
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const timer = yield* PatternTimer
  const events = yield* EventLog

  const record = (name: string, id: string, payload: Record<string, unknown>) =>
    emit({ name, entityType: "content_page", entityId: id, payload }).pipe(
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )

  const organizationOf = (organizationId: string) =>
    Effect.map(organizations.findById(organizationId), Option.map((row) => row.organization))

  const gate = (organizationId: string) =>
    Effect.flatMap(organizationOf(organizationId), (organization) => {
      const feature = contentPagesFeature(settings.contentPagesEntitled, Option.match(organization, { onNone: () => null, onSome: (o) => o.settings }))
      return isUsable(feature)
        ? Effect.void
        : Effect.fail(new Forbidden({ message: feature.entitled ? "content pages are disabled for this organization" : "content pages are not part of this plan" }))
    })

  /** One transaction of the current organization, after the feature check. */
  const inTenant = <A, E, R>(f: (organizationId: string) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(CurrentTenant, (t) => uow.tenant(t.organizationId, Effect.zipRight(gate(t.organizationId), f(t.organizationId))))

  const find = (organizationId: string, id: string) =>
    repo.findById(organizationId, id).pipe(orNotFound("content page", id))

  const contentFamily = (organizationId: string, familyId: string) =>
    Effect.flatMap(families.schemaOf(organizationId, familyId), (schema) =>
      Option.isSome(schema) && schema.value.family.entityKind === "content"
        ? Effect.succeed(schema.value)
        : Effect.fail(ValidationFailed.one(["familyId"], `content family ${familyId} does not exist`, "unknown_family")))

  const scopeOf = (organizationId: string) =>
    Effect.map(organizationOf(organizationId), (o) => defaultScope(Option.getOrNull(o)?.settings ?? null))

  const ensureSlugFree = (organizationId: string, slug: string) =>
    Effect.flatMap(repo.slugsTaken(organizationId, [slug]), (taken) =>
      taken.has(slug) ? Effect.fail(new Conflict({ message: `content page slug ${slug} is taken` })) : Effect.void)

  const refuse = (issues: ReadonlyArray<Issue>) => issues.length > 0 ? Effect.fail(ValidationFailed.of(issues)) : Effect.void

  const create = (input: CreateContentPage) =>
    retryGeneratedSlug(input.slug === undefined, inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        const schema = yield* contentFamily(organizationId, input.familyId)
        const specs = specsOf(schema)
        const checked = valueChecks(timer).values(specs, input.attributes ?? {}, ["attributes"])
        if (Either.isLeft(checked)) return yield* ValidationFailed.of(checked.left)
        yield* checkMediaValues(media, organizationId, specs, checked.right)
        const values = withoutRemovals(checked.right)
        const status = input.status ?? "draft"
        if (status === "active") yield* refuse(missingRequired(schema.attributes, values, yield* scopeOf(organizationId), "content page"))
        const id = yield* crypto.uuid
        if (input.slug !== undefined) yield* ensureSlugFree(organizationId, input.slug)
        const at = yield* now
        const page = new ContentPage({
          id,
          organizationId,
          familyId: input.familyId,
          title: input.title,
          slug: input.slug ?? (yield* freeSlug(input.title, id, "page", (slugs) => repo.slugsTaken(organizationId, slugs))),
          status,
          attributes: values,
          createdAt: at,
          updatedAt: at
        }, true)
        yield* repo.insert(page)
        yield* record("content_page.created", id, { slug: page.slug })
        return page
      })
    ))

  const update = (id: string, input: UpdateContentPage) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        yield* uow.lock("content_page", [id])
        const current = yield* find(organizationId, id)
        const familyId = input.familyId ?? current.familyId
        const schema = yield* contentFamily(organizationId, familyId)
        const specs = specsOf(schema)
        const checks = valueChecks(timer)
        let values: AttributeValues = current.attributes
        let touched: ReadonlyArray<string> = []
        if (input.attributes !== undefined) {
          const { declared, removals } = splitUndeclaredRemovals(specs, current.attributes, input.attributes)
          const checked = checks.values(specs, declared, ["attributes"], current.attributes)
          if (Either.isLeft(checked)) return yield* ValidationFailed.of(checked.left)
          yield* checkMediaValues(media, organizationId, specs, checked.right, current.attributes)
          const merged = mergeValues(current.attributes, { ...checked.right, ...removals })
          values = merged.merged
          touched = merged.touched
        }
        if (familyId !== current.familyId) {
          // Values kept from the old family must suit the new one; as they are stored, only their codes and types are checked.
          const recheck = checks.values(specs, inCodeOrder(values), ["attributes"], current.attributes)
          if (Either.isLeft(recheck)) return yield* ValidationFailed.of(recheck.left)
        }
        if (input.status === "active") {
          yield* refuse(missingRequired(schema.attributes, values, yield* scopeOf(organizationId), "content page"))
        }
        if (input.slug !== undefined && input.slug !== current.slug) yield* ensureSlugFree(organizationId, input.slug)
        const next = new ContentPage({
          ...current,
          familyId,
          title: input.title ?? current.title,
          slug: input.slug ?? current.slug,
          status: input.status ?? current.status,
          attributes: values,
          updatedAt: yield* now
        }, true)
        const changed = [
          ...(["familyId", "title", "slug", "status"] as const).filter((k) => next[k] !== current[k]),
          ...attributeChanges(touched)
        ]
        yield* record("content_page.updated", id, { changed_fields: changed })
        if (changed.length === 0) return current
        yield* repo.update(next)
        return next
      })
    )

  const remove = (id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("content_page", [id])
        const page = yield* find(organizationId, id)
        yield* repo.remove(organizationId, id)
        yield* record("content_page.deleted", id, { slug: page.slug })
      })
    )

  return withRecordIds(ContentPages.of({
    ensureEnabled: inTenant(() => Effect.void),
    list: (filter) =>
      inTenant((organizationId) =>
        Effect.map(repo.list(organizationId, filter), ({ hasMore, pages }) =>
          new ContentPageList({ data: pages, limit: filter.limit, offset: filter.offset, hasMore }, true))
      ),
    get: (id) => inTenant((organizationId) => find(organizationId, id)),
    create,
    update,
    remove
  }), { get: ["content page"], update: ["content page"], remove: ["content page"] })
})

export const ContentPagesLive = Layer.effect(ContentPages, makeContentPages)
