import { Context, Effect, Layer, Option, Ref } from "effect"
import { BrandRepository } from "../catalog/BrandRepository.js"
import { retryGeneratedSlug } from "../catalog/GeneratedSlug.js"
import { mediaUrl } from "../media/Media.js"
import { BlobStore } from "../shared/BlobStore.js"
import { MediaRepository } from "../media/MediaRepository.js"
import { uuidValuesOf } from "../media/MediaValues.js"
import { CategoryRepository } from "../catalog/CategoryRepository.js"
import { emit, EventLog } from "../events/EventLog.js"
import { holdDefinitions } from "../schema/DefinitionLock.js"
import { FamilyRepository, type FamilySchema } from "../schema/FamilyRepository.js"
import { localeKey } from "../schema/AttributeValues.js"
import { Crypto } from "../shared/Crypto.js"
import { type Conflict, NotFound, orNotFound, type ValidationFailed } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { OrganizationRepository } from "../tenancy/OrganizationRepository.js"
import { type CreateProduct, type Product, ProductDetails, type ProductJson, toListItem, toProduct, type UpdateProduct } from "./Product.js"
import { type BulkResult, runBulk } from "./ProductBulk.js"
import type { FacetDimension, ProductPage } from "./ProductFilter.js"
import { generatedSlugs, type PlanContext, planCreate, type PlanNeeds, planUpdate, SlugBook } from "./ProductPlan.js"
import { filterAndSortOf } from "./ProductQueries.js"
import type { FacetsQuery, ListProductsQuery } from "./ProductQuery.js"
import { ProductRepository } from "./ProductRepository.js"
import { ProductFacets, ProductList, ProductListJson, withField } from "./ProductResults.js"
import { resolveValues } from "./ProductValues.js"
import { now } from "../shared/Tenant.js"
import { isUuid } from "../shared/Fields.js"
import { defaultScope } from "../tenancy/Organization.js"
import { PatternTimer, valueChecks } from "../schema/PatternTimer.js"
import { withRecordIds } from "../shared/RecordIds.js"
import { byCodePoint } from "../shared/CodePointOrder.js"

export class Products extends Context.Tag("catalog/Products")<Products, {
  readonly create: (input: CreateProduct) => Effect.Effect<Product, ValidationFailed | Conflict, CurrentTenant>
  /** With a locale or a channel, also answers the values resolved for that scope. */
  readonly get: (
    id: string,
    scope: { readonly locale?: string | undefined; readonly channel?: string | undefined }
  ) => Effect.Effect<ProductDetails, NotFound, CurrentTenant>
  /** The product as `Product` JSON, read without a decode and encode round trip. */
  readonly json: (id: string) => Effect.Effect<ProductJson, NotFound, CurrentTenant>
  readonly update: (id: string, patch: UpdateProduct) => Effect.Effect<Product, NotFound | ValidationFailed | Conflict, CurrentTenant>
  readonly delete: (id: string) => Effect.Effect<void, NotFound, CurrentTenant>
  readonly list: (query: ListProductsQuery) => Effect.Effect<ProductList, ValidationFailed, CurrentTenant>
  /** The same page as `ProductList` JSON, its stored values never decoded and encoded. */
  readonly listJson: (query: ListProductsQuery) => Effect.Effect<ProductListJson, ValidationFailed, CurrentTenant>
  readonly facets: (query: FacetsQuery) => Effect.Effect<ProductFacets, ValidationFailed, CurrentTenant>
  /** Up to 500 creates, updates and deletes; each item succeeds or fails on its own. */
  readonly bulk: (items: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<BulkResult>, never, CurrentTenant>
}>() {}

const DEFAULT_CAPS: Readonly<Record<FacetDimension, number>> = {
  families: 50,
  statuses: 3,
  categories: 30,
  brands: 30,
  connectors: 20,
  tags: 30
}

/**
 * A bulk batch holds the slugs it renames products to in at most this many groups per
 * organization: a lock per slug would let concurrent batches fill Postgres' shared lock table
 * (64 locks per connection by default) beside their product locks. Batches renaming many
 * products then take turns; a few renames rarely share a group.
 */
const SLUG_GROUPS = 64
const slugGroup = (slug: string): number => {
  let hash = 0
  for (let i = 0; i < slug.length; i++) hash = (hash * 31 + slug.charCodeAt(i)) | 0
  return (hash >>> 0) % SLUG_GROUPS
}

const isDeleteItem = (item: unknown): item is { readonly op: "delete"; readonly id: string } =>
  typeof item === "object" && item !== null && "op" in item && item.op === "delete" && "id" in item && typeof item.id === "string" &&
  isUuid(item.id)

/**
 * The ids bulk items ask to delete, valid or not, lower-cased as an item's id is read: only to
 * look up their media before the deletions and to tell which bytes went with them.
 */
const deleteIds = (items: ReadonlyArray<unknown>): ReadonlyArray<string> => items.filter(isDeleteItem).map((item) => item.id.toLowerCase())

/**
 * A label's text in one locale: its own key of that locale, whatever the case of either. Of
 * keys naming it in several cases (a label stored before such labels were refused), the first
 * in code point order: the order a database keeps a label's keys in is its own.
 */
const labelAt = (label: Readonly<Record<string, string>>, locale: string | null | undefined): string | undefined => {
  if (locale === undefined || locale === null) return undefined
  if (Object.hasOwn(label, locale)) return label[locale]
  const key = localeKey(locale)
  const found = Object.keys(label).filter((k) => localeKey(k) === key).sort(byCodePoint)[0]
  return found === undefined ? undefined : label[found]
}

/**
 * The label of the locale that sorts first in code point order: a stored label's key order is
 * the database's (insertion order on SQLite, length then bytes in a Postgres jsonb), so it
 * cannot choose.
 */
const firstByLocale = (label: Readonly<Record<string, string>>): string | null => {
  const first = Object.keys(label).sort(byCodePoint)[0]
  return first === undefined ? null : label[first] ?? null
}

export const makeProducts = Effect.gen(function*() {
  const repo = yield* ProductRepository
  const timer = yield* PatternTimer
  const media = yield* MediaRepository
  const blobs = yield* BlobStore
  const families = yield* FamilyRepository
  const brands = yield* BrandRepository
  const categories = yield* CategoryRepository
  const organizations = yield* OrganizationRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideService(ProductRepository, repo),
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )
  const inTenant = <A, E, R>(f: (organizationId: string) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(CurrentTenant, (t) => uow.tenant(t.organizationId, provide(f(t.organizationId))))
  const readInTenant = <A, E, R>(f: (organizationId: string) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(CurrentTenant, (t) => uow.read(t.organizationId, f(t.organizationId)))
  const snapshotInTenant = <A, E, R>(f: (organizationId: string) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(CurrentTenant, (t) => uow.snapshot(t.organizationId, provide(f(t.organizationId))))

  const orgDefaults = (organizationId: string) =>
    Effect.map(organizations.findById(organizationId), (row) =>
      defaultScope(Option.getOrNull(Option.flatMapNullable(row, (r) => r.organization.settings))))

  /** Loads everything `planCreate`/`planUpdate` check against; call inside the tenant transaction. */
  const planContext = (organizationId: string, needs: PlanNeeds) =>
    Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      return yield* planContextFor(organizationId, tenant.actor.id, needs)
    })

  const planContextFor = (organizationId: string, actorId: string, needs: PlanNeeds) =>
    Effect.gen(function*() {
      const schemas = new Map<string, FamilySchema>()
      for (const id of new Set(needs.familyIds)) {
        const schema = yield* families.schemaOf(organizationId, id)
        if (Option.isSome(schema) && schema.value.family.entityKind === "product") schemas.set(id, schema.value)
      }
      const context: PlanContext = {
        organizationId,
        actorId,
        now: yield* now,
        scope: yield* orgDefaults(organizationId),
        families: schemas,
        brands: yield* brands.existing(organizationId, [...new Set(needs.brandIds)]),
        categories: yield* categories.existing(organizationId, [...new Set(needs.categoryIds)]),
        media: yield* media.existing(organizationId, [...new Set(needs.mediaIds)]),
        slugs: new SlugBook(yield* repo.slugsTaken(organizationId, [...new Set(needs.slugs)])),
        checks: valueChecks(timer)
      }
      return context
    })

  /** Holds the brands, categories and media a write names against their deletion (`existing` reads them `FOR KEY SHARE`). */
  const holdReferences = (organizationId: string, needs: Pick<PlanNeeds, "brandIds" | "categoryIds" | "mediaIds">) =>
    Effect.all([
      brands.existing(organizationId, [...new Set(needs.brandIds)]),
      categories.existing(organizationId, [...new Set(needs.categoryIds)]),
      media.existing(organizationId, [...new Set(needs.mediaIds)])
    ], { discard: true })

  const createNeeds = (inputs: ReadonlyArray<{ readonly input: CreateProduct; readonly id: string }>): PlanNeeds => ({
    familyIds: inputs.map((c) => c.input.familyId),
    brandIds: inputs.flatMap((c) => (c.input.brandId ? [c.input.brandId] : [])),
    categoryIds: inputs.flatMap((c) => c.input.categoryIds ?? []),
    slugs: inputs.flatMap((c) => (c.input.slug !== undefined ? [c.input.slug] : generatedSlugs(c.input.name, c.id))),
    mediaIds: inputs.flatMap((c) => uuidValuesOf(c.input.attributes))
  })

  const create = (input: CreateProduct) =>
    retryGeneratedSlug(input.slug === undefined, inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        const id = yield* crypto.uuid
        const context = yield* planContext(organizationId, createNeeds([{ input, id }]))
        const write = yield* planCreate(context, input, id)
        yield* repo.insert([write])
        yield* emit({ name: "product.created", entityType: "product", entityId: id, payload: { slug: write.product.slug } })
        return toProduct(write.product)
      })
    ))

  // Reads only: no transaction needed beyond the tenant's.
  const get = (id: string, scope: { readonly locale?: string | undefined; readonly channel?: string | undefined }) =>
    readInTenant((organizationId) =>
      Effect.gen(function*() {
        const found = yield* repo.findById(organizationId, id)
        if (Option.isNone(found)) return yield* new NotFound({ entity: "product", id })
        const product = toProduct(found.value)
        if (scope.locale === undefined && scope.channel === undefined) return new ProductDetails(product, true)
        // The one not asked for is the organization's default, as it is for completeness.
        const defaults = scope.locale === undefined || scope.channel === undefined
          ? yield* orgDefaults(organizationId)
          : { locale: null, channel: null }
        const resolvedAttributes = resolveValues(found.value.attributes, scope.locale ?? defaults.locale, scope.channel ?? defaults.channel)
        return new ProductDetails({ ...product, resolvedAttributes }, true)
      })
    )

  const json = (id: string) =>
    readInTenant((organizationId) =>
      repo.findJson(organizationId, id).pipe(orNotFound("product", id))
    )

  const update = (id: string, patch: UpdateProduct) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* holdDefinitions(uow, organizationId)
        // As a bulk batch does: what it names, then the product's row, then the read (see `BulkDeps.holdReferences`).
        yield* holdReferences(organizationId, {
          brandIds: patch.brandId ? [patch.brandId] : [],
          categoryIds: patch.categoryIds ?? [],
          mediaIds: uuidValuesOf(patch.attributes)
        })
        yield* uow.lock("product", [id])
        yield* repo.hold(organizationId, [id])
        const found = yield* repo.findById(organizationId, id)
        if (Option.isNone(found)) return yield* new NotFound({ entity: "product", id })
        const current = found.value
        const context = yield* planContext(organizationId, {
          familyIds: [patch.familyId ?? current.familyId],
          brandIds: patch.brandId ? [patch.brandId] : [],
          categoryIds: patch.categoryIds ?? [],
          slugs: patch.slug !== undefined && patch.slug !== current.slug ? [patch.slug] : [],
          mediaIds: uuidValuesOf(patch.attributes)
        })
        const planned = yield* planUpdate(context, current, patch)
        if (planned.changedFields.length > 0) yield* repo.update(planned.write)
        yield* emit({
          name: "product.updated",
          entityType: "product",
          entityId: id,
          payload: { changed_fields: planned.changedFields }
        })
        return toProduct(planned.changedFields.length > 0 ? planned.write.product : current)
      })
    )

  /**
   * After a commit that deleted products: their media rows went with them, their bytes go now.
   * A deletion runs to its end: one interrupted during its commit (a client closing its
   * connection) was acted on after it, and kept the bytes without their records.
   */
  const removeBlobs = (keys: ReadonlyArray<{ readonly productId: string; readonly blobKey: string }>, deleted: ReadonlySet<string>) =>
    Effect.forEach(keys, (k) => (deleted.has(k.productId) ? blobs.remove(k.blobKey) : Effect.void), { discard: true })

  const remove = (id: string) =>
    inTenant((organizationId) =>
      Effect.gen(function*() {
        yield* uow.lock("product", [id])
        const found = yield* repo.findById(organizationId, id)
        if (Option.isNone(found)) return yield* new NotFound({ entity: "product", id })
        const keys = yield* media.blobKeysOf(organizationId, [id])
        yield* repo.delete(organizationId, id)
        yield* emit({ name: "product.deleted", entityType: "product", entityId: id, payload: { slug: found.value.slug } })
        return keys
      })
    ).pipe(Effect.flatMap((keys) => removeBlobs(keys, new Set([id]))), Effect.uninterruptible)

  /** The page a list query asks for, read by `read` (records or JSON), and the media's first url per product. */
  const pageOf = <A extends { readonly id: string }>(
    query: ListProductsQuery,
    read: (...args: Parameters<ProductRepository["Type"]["list"]>) => Effect.Effect<ProductPage<A>>
  ) =>
    snapshotInTenant((organizationId) =>
      Effect.gen(function*() {
        const [filter, sort] = yield* filterAndSortOf(organizationId, query)
        const limit = query.limit ?? 50
        const offset = query.offset ?? 0
        const page = yield* read(organizationId, filter, sort, { limit, offset, withTotal: query.withTotal ?? false })
        const thumbnails = yield* media.firstOf(organizationId, page.items.map((p) => p.id))
        const thumbnailOf = (id: string) => {
          const first = thumbnails.get(id)
          return first === undefined ? null : mediaUrl(first)
        }
        return { page, thumbnailOf, limit, offset }
      })
    )

  const list = (query: ListProductsQuery) =>
    Effect.map(pageOf(query, repo.list), ({ limit, offset, page, thumbnailOf }) =>
      new ProductList({
        data: page.items.map((item) => toListItem(item, thumbnailOf(item.id))),
        limit,
        offset,
        hasMore: page.hasMore,
        ...(page.total !== undefined ? { total: page.total } : {})
      }, true))

  const listJson = (query: ListProductsQuery) =>
    Effect.map(pageOf(query, repo.listJson), ({ limit, offset, page, thumbnailOf }) =>
      ProductListJson(
        `{"data":[${page.items.map((item) => withField(item.json, "thumbnailUrl", thumbnailOf(item.id))).join(",")}],` +
          `"limit":${limit},"offset":${offset},"hasMore":${page.hasMore}` +
          `${page.total !== undefined ? `,"total":${page.total}` : ""}}`
      ))

  const facets = (query: FacetsQuery) =>
    snapshotInTenant((organizationId) =>
      Effect.gen(function*() {
        // The sort is not used, but a query string the list refuses is refused here too.
        const [filter] = yield* filterAndSortOf(organizationId, query)
        const cap = query.facetLimit
        const caps = cap === undefined
          ? DEFAULT_CAPS
          : { families: cap, statuses: cap, categories: cap, brands: cap, connectors: cap, tags: cap }
        const counts = yield* repo.facets(organizationId, filter, { caps, includeEmpty: query.includeEmpty ?? false })
        const defaults = yield* orgDefaults(organizationId)
        const labelOf = (label: Readonly<Record<string, string>>): string | null =>
          labelAt(label, query.locale) ?? labelAt(label, defaults.locale) ?? labelAt(label, "en") ?? firstByLocale(label)
        return new ProductFacets({
          total: counts.total,
          families: counts.families.map((f) => ({ id: f.id, code: f.code, label: labelOf(f.label), count: f.count })),
          statuses: counts.statuses,
          categories: counts.categories,
          brands: counts.brands,
          connectors: counts.connectors,
          tags: counts.tags
        }, true)
      })
    )

  const bulk = (items: ReadonlyArray<unknown>) =>
    Effect.flatMap(CurrentTenant, (tenant) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* holdDefinitions(uow, organizationId)
          // Read once the batch holds its products: before, an upload or a detachment could still
          // change which media the deletions take.
          const keys = yield* Ref.make<ReadonlyArray<{ readonly productId: string; readonly blobKey: string }>>([])
          const results = yield* runBulk(organizationId, items, {
            planContext: (needs) => planContextFor(organizationId, tenant.actor.id, needs),
            holdReferences: (needs) => holdReferences(organizationId, needs),
            nestedTransaction: (effect) => uow.tenant(organizationId, effect),
            lock: (ids) =>
              uow.lock("product", ids).pipe(
                Effect.zipRight(repo.hold(organizationId, ids)),
                Effect.zipRight(media.blobKeysOf(organizationId, deleteIds(items))),
                Effect.flatMap((held) => Ref.set(keys, held))
              ),
            holdSlugs: (slugs) => uow.lock("product-slug", [...new Set(slugs.map((slug) => `${organizationId}/${slugGroup(slug)}`))]),
            newId: crypto.uuid
          })
          return { keys: yield* Ref.get(keys), results }
        })
      ).pipe(
        Effect.tap(({ keys, results }) => {
          const deleted = new Set(results.flatMap((r) => (r.ok && deleteIds([items[r.index]]).includes(r.id) ? [r.id] : [])))
          return removeBlobs(keys, deleted)
        }),
        Effect.map(({ results }) => results),
        Effect.uninterruptible
      ))

  return withRecordIds(Products.of({ create, get, json, update, delete: remove, list, listJson, facets, bulk }), { get: ["product"], json: ["product"], update: ["product"], delete: ["product"] })
})

export const ProductsLive = Layer.effect(Products, makeProducts)

export type { BulkResult }
