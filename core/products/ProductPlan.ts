import { Either } from "effect"
import { canonicalTags } from "../catalog/Tags.js"
import { slugCandidates } from "../catalog/Slugs.js"
import { unknownMediaIssues } from "../media/MediaValues.js"
import { type AttributeSpec, type AttributeValues } from "../schema/AttributeValues.js"
import type { ValueChecks } from "../schema/PatternTimer.js"
import type { FamilySchema } from "../schema/FamilyRepository.js"
import { addIssues, Conflict, type Issue, ValidationFailed } from "../shared/Errors.js"
import type { CreateProduct, ProductRecord, UpdateProduct } from "./Product.js"
import type { ProductWrite } from "./ProductRepository.js"
import { attributeChanges, inCodeOrder, mergeValues, missingRequired, productIndex, splitUndeclaredRemovals, withoutRemovals } from "./ProductValues.js"

/**
 * Slugs taken in the organization (as far as the batch asked) and those claimed by the batch
 * itself, so two items of one bulk request never get the same slug.
 */
export class SlugBook {
  private readonly taken: Set<string>
  constructor(taken: Iterable<string>) {
    this.taken = new Set(taken)
  }
  isFree(slug: string): boolean {
    return !this.taken.has(slug)
  }
  claim(slug: string): void {
    this.taken.add(slug)
  }
  /** A slug an earlier item of the batch gave up (by a rename or a deletion). */
  release(slug: string): void {
    this.taken.delete(slug)
  }
}

/** The two slugs tried for a product written without one: from its name, then with a suffix from its id. */
export const generatedSlugs = (name: string, id: string): readonly [string, string] => {
  const [base, suffixed] = slugCandidates(name, id, "product")
  return [base, suffixed]
}

/** What the writes of one request refer to, so their context is loaded in a handful of queries. */
export interface PlanNeeds {
  readonly familyIds: Iterable<string>
  readonly brandIds: Iterable<string>
  readonly categoryIds: Iterable<string>
  readonly slugs: Iterable<string>
  /** Ids the attribute values might name as media (see `uuidValuesOf`). */
  readonly mediaIds: Iterable<string>
}

/** Everything a write is checked against, loaded once per request (or once per bulk batch). */
export interface PlanContext {
  readonly organizationId: string
  readonly actorId: string
  readonly now: string
  /** The organization's default locale and channel: where required attributes must be filled. */
  readonly scope: { readonly locale: string | null; readonly channel: string | null }
  /** Product families by id; a family missing here does not exist (or is not a product family). */
  readonly families: ReadonlyMap<string, FamilySchema>
  readonly brands: ReadonlySet<string>
  readonly categories: ReadonlySet<string>
  /** Media records of the organization, among those the needs named. */
  readonly media: ReadonlySet<string>
  readonly slugs: SlugBook
  /** The request's value checks, with its time for the attributes' patterns. */
  readonly checks: ValueChecks
}

// A bulk batch plans hundreds of items against the same few families: build each map once.
const specCache = new WeakMap<FamilySchema, ReadonlyMap<string, AttributeSpec>>()
const specsOf = (schema: FamilySchema): ReadonlyMap<string, AttributeSpec> => {
  let specs = specCache.get(schema)
  if (specs === undefined) {
    specs = new Map(schema.attributes.map((a) => [a.code, a]))
    specCache.set(schema, specs)
  }
  return specs
}

const referenceIssues = (
  ctx: PlanContext,
  brandId: string | null | undefined,
  categoryIds: ReadonlyArray<string> | undefined
): Array<Issue> => {
  const issues: Array<Issue> = []
  if (brandId !== undefined && brandId !== null && !ctx.brands.has(brandId)) {
    issues.push({ path: ["brandId"], message: `brand ${brandId} does not exist`, code: "unknown_brand" })
  }
  ;(categoryIds ?? []).forEach((id, i) => {
    if (!ctx.categories.has(id)) issues.push({ path: ["categoryIds", i], message: `category ${id} does not exist`, code: "unknown_category" })
  })
  return issues
}

const familyIssue = (familyId: string): Issue => ({
  path: ["familyId"],
  message: `product family ${familyId} does not exist`,
  code: "unknown_family"
})

const slugTaken = (slug: string) => new Conflict({ message: `product slug ${slug} is taken` })

const unique = (ids: ReadonlyArray<string>) => [...new Set(ids)]

/** Checks a create against the family, references and slugs; answers the rows to write. */
export const planCreate = (
  ctx: PlanContext,
  input: CreateProduct,
  id: string
): Either.Either<ProductWrite, ValidationFailed | Conflict> => {
  const schema = ctx.families.get(input.familyId)
  if (schema === undefined) return Either.left(ValidationFailed.of([familyIssue(input.familyId)]))
  const issues = referenceIssues(ctx, input.brandId, input.categoryIds)
  const specs = specsOf(schema)
  const checked = ctx.checks.values(specs, input.attributes ?? {}, ["attributes"])
  if (Either.isLeft(checked)) addIssues(issues, checked.left)
  else addIssues(issues, unknownMediaIssues(specs, checked.right, ctx.media))
  const values = Either.isRight(checked) ? withoutRemovals(checked.right) : {}
  const status = input.status ?? "draft"
  if (status === "active" && Either.isRight(checked)) addIssues(issues, missingRequired(schema.attributes, values, ctx.scope))
  if (issues.length > 0) return Either.left(ValidationFailed.of(issues))

  let slug: string
  if (input.slug !== undefined) {
    if (!ctx.slugs.isFree(input.slug)) return Either.left(slugTaken(input.slug))
    slug = input.slug
  } else {
    const [base, suffixed, last] = slugCandidates(input.name, id, "product")
    slug = ctx.slugs.isFree(base) ? base : ctx.slugs.isFree(suffixed) ? suffixed : last
  }
  ctx.slugs.claim(slug)
  const product: ProductRecord = {
    id,
    organizationId: ctx.organizationId,
    familyId: input.familyId,
    name: input.name,
    slug,
    status,
    brandId: input.brandId ?? null,
    attributes: values,
    tags: canonicalTags(input.tags ?? []),
    categoryIds: unique(input.categoryIds ?? []),
    sourceConnectorId: null,
    createdBy: ctx.actorId,
    updatedBy: ctx.actorId,
    createdAt: ctx.now,
    updatedAt: ctx.now
  }
  return Either.right({ product, index: productIndex(product.name, product.slug, values, schema.attributes) })
}

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

export interface PlannedUpdate {
  readonly write: ProductWrite
  /** Top-level fields that changed (`attributes` among them), and `attributes.<code>` per code whose entries changed. */
  readonly changedFields: ReadonlyArray<string>
}

/** Checks a patch against the (new) family, references and slugs; answers the merged rows and what changed. */
export const planUpdate = (
  ctx: PlanContext,
  current: ProductRecord,
  patch: UpdateProduct
): Either.Either<PlannedUpdate, ValidationFailed | Conflict> => {
  const familyId = patch.familyId ?? current.familyId
  const familyChanged = familyId !== current.familyId
  const schema = ctx.families.get(familyId)
  if (schema === undefined) return Either.left(ValidationFailed.of([familyIssue(familyId)]))
  const specs = specsOf(schema)
  const issues = referenceIssues(ctx, patch.brandId, patch.categoryIds)

  let values: AttributeValues = current.attributes
  let touched: ReadonlyArray<string> = []
  // Whether `values` is what the write would store: only then can it be checked for the required attributes.
  let valuesKnown = true
  if (patch.attributes !== undefined) {
    const { declared, removals } = splitUndeclaredRemovals(specs, current.attributes, patch.attributes)
    const checked = ctx.checks.values(specs, declared, ["attributes"], current.attributes)
    if (Either.isLeft(checked)) {
      addIssues(issues, checked.left)
      valuesKnown = false
    } else {
      addIssues(issues, unknownMediaIssues(specs, checked.right, ctx.media, current.attributes))
      const merged = mergeValues(current.attributes, { ...checked.right, ...removals })
      values = merged.merged
      touched = merged.touched
    }
  }
  if (familyChanged && valuesKnown) {
    // Values kept from the old family must suit the new one; as they are stored, only their codes and types are checked.
    const recheck = ctx.checks.values(specs, inCodeOrder(values), ["attributes"], current.attributes)
    if (Either.isLeft(recheck)) {
      addIssues(issues, recheck.left)
      valuesKnown = false
    }
  }
  // As on create, the required attributes are named next to the issues of the other fields.
  if (patch.status === "active" && valuesKnown) addIssues(issues, missingRequired(schema.attributes, values, ctx.scope))
  if (issues.length > 0) return Either.left(ValidationFailed.of(issues))

  let slug = current.slug
  if (patch.slug !== undefined && patch.slug !== current.slug) {
    if (!ctx.slugs.isFree(patch.slug)) return Either.left(slugTaken(patch.slug))
    ctx.slugs.claim(patch.slug)
    ctx.slugs.release(current.slug)
    slug = patch.slug
  }
  const tags = patch.tags === undefined ? current.tags : canonicalTags(patch.tags)
  const categoryIds = patch.categoryIds === undefined ? current.categoryIds : unique(patch.categoryIds)
  const next: ProductRecord = {
    ...current,
    familyId,
    name: patch.name ?? current.name,
    slug,
    status: patch.status ?? current.status,
    brandId: patch.brandId === undefined ? current.brandId : patch.brandId,
    attributes: values,
    tags,
    categoryIds,
    updatedBy: ctx.actorId,
    updatedAt: ctx.now
  }
  const changedFields = [
    ...(familyChanged ? ["familyId"] : []),
    ...(next.name !== current.name ? ["name"] : []),
    ...(next.slug !== current.slug ? ["slug"] : []),
    ...(next.status !== current.status ? ["status"] : []),
    ...(next.brandId !== current.brandId ? ["brandId"] : []),
    ...(sameList(next.tags, current.tags) ? [] : ["tags"]),
    ...(sameList(next.categoryIds, current.categoryIds) ? [] : ["categoryIds"]),
    ...attributeChanges(touched)
  ]
  return Either.right({
    write: { product: next, index: productIndex(next.name, next.slug, values, schema.attributes) },
    changedFields
  })
}
