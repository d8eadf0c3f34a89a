import { Effect, Either, Option, Schema, SchemaAST as AST } from "effect"
import type { NewEvent } from "../events/Event.js"
import { emitAll } from "../events/EventLog.js"
import { uuidValuesOf } from "../media/MediaValues.js"
import { BoundedArray } from "../shared/Bounded.js"
import { type Conflict, NotFound, type ValidationFailed } from "../shared/Errors.js"
import { Uuid } from "../shared/Fields.js"
import { validationFailedOf } from "../shared/ParseIssues.js"
import { CreateProduct, type ProductRecord, UpdateProduct } from "./Product.js"
import { generatedSlugs, type PlanContext, type PlanNeeds, planCreate, planUpdate, SlugBook } from "./ProductPlan.js"
import { ProductRepository, type ProductWrite } from "./ProductRepository.js"

const MAX_BULK_ITEMS = 500

const Op = Schema.Struct({ op: Schema.Literal("create", "update", "delete") })
// An item's keys it does not define are ignored, as a body's are: the document says so.
const open = { jsonSchema: { additionalProperties: true } }
const CreateItem = Schema.Struct({ op: Schema.Literal("create"), ...CreateProduct.fields }).annotations(open)
const UpdateItem = Schema.Struct({ op: Schema.Literal("update"), id: Uuid, ...UpdateProduct.fields }).annotations(open)
const DeleteItem = Schema.Struct({ op: Schema.Literal("delete"), id: Uuid }).annotations(open)

/**
 * `POST /v1/products/bulk` body: the items are checked one by one, so each can fail alone. The
 * interface's document shows each item as the create, update or delete it is checked as.
 */
export const BulkRequest = Schema.Struct({
  items: BoundedArray(
    Schema.Unknown.annotations({ [AST.SurrogateAnnotationId]: Schema.Union(CreateItem, UpdateItem, DeleteItem).ast }),
    MAX_BULK_ITEMS,
    `at most ${MAX_BULK_ITEMS} items`
  )
})
const decodeOp = Schema.decodeUnknownEither(Op)
const decodeCreate = Schema.decodeUnknownEither(CreateItem, { errors: "all" })
const decodeUpdate = Schema.decodeUnknownEither(UpdateItem, { errors: "all" })
const decodeDelete = Schema.decodeUnknownEither(DeleteItem, { errors: "all" })

export type BulkError = ValidationFailed | NotFound | Conflict

export type BulkResult =
  | { readonly ok: true; readonly index: number; readonly id: string }
  | { readonly ok: false; readonly index: number; readonly error: BulkError }

type Decoded =
  | { readonly op: "create"; readonly index: number; readonly id: string; readonly input: CreateProduct }
  | { readonly op: "update"; readonly index: number; readonly id: string; readonly patch: UpdateProduct }
  | { readonly op: "delete"; readonly index: number; readonly id: string }

const decodeItem = (item: unknown, index: number, newId: string): Either.Either<Decoded, ValidationFailed> => {
  const op = decodeOp(item)
  if (Either.isLeft(op)) return Either.left(validationFailedOf(op.left))
  switch (op.right.op) {
    case "create":
      return Either.map(decodeCreate(item), ({ op: _, ...input }) => ({ op: "create" as const, index, id: newId, input })).pipe(
        Either.mapLeft((e) => validationFailedOf(e))
      )
    case "update":
      return Either.map(decodeUpdate(item), ({ op: _, id, ...patch }) => ({ op: "update" as const, index, id, patch })).pipe(
        Either.mapLeft((e) => validationFailedOf(e))
      )
    case "delete":
      return Either.map(decodeDelete(item), ({ id }) => ({ op: "delete" as const, index, id })).pipe(
        Either.mapLeft((e) => validationFailedOf(e))
      )
  }
}

type Step =
  | { readonly op: "create"; readonly index: number; readonly write: ProductWrite; readonly input: CreateProduct }
  | {
    readonly op: "update"
    readonly index: number
    /** The product as the item was planned on: as stored, or as the batch's earlier items leave it. */
    readonly base: ProductRecord
    readonly patch: UpdateProduct
    /** What planning made of the item: refused ones are kept too, as an earlier refusal may change them. */
    readonly plan: Either.Either<PlannedUpdate, BulkError>
  }
  | { readonly op: "delete"; readonly index: number; readonly product: ProductRecord }
type CreateStep = Extract<Step, { op: "create" }>
type UpdateStep = Extract<Step, { op: "update" }>
type PlannedUpdate = { readonly write: ProductWrite; readonly changedFields: ReadonlyArray<string> }

/** The event announcing a written step; an update announces the fields its plan changed. */
const announcementOf = (s: Step): NewEvent => {
  switch (s.op) {
    case "create":
      return { name: "product.created", entityType: "product", entityId: s.write.product.id, payload: { slug: s.write.product.slug } }
    case "update": {
      const changedFields = Either.isRight(s.plan) ? s.plan.right.changedFields : []
      return { name: "product.updated", entityType: "product", entityId: s.base.id, payload: { changed_fields: changedFields } }
    }
    case "delete":
      return { name: "product.deleted", entityType: "product", entityId: s.product.id, payload: { slug: s.product.slug } }
  }
}

export interface BulkDeps {
  readonly planContext: (needs: PlanNeeds) => Effect.Effect<PlanContext>
  /**
   * Holds the brands, categories and media the items name against their deletion, as
   * `planContext` does; called before the products are held, the order in which a brand's or
   * category's deletion takes the same locks.
   */
  readonly holdReferences: (needs: Pick<PlanNeeds, "brandIds" | "categoryIds" | "mediaIds">) => Effect.Effect<void>
  /** Runs `effect` in a savepoint of the batch's transaction, so a failure undoes only it. */
  readonly nestedTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Holds the products the batch updates or deletes against other writers (see `UnitOfWork.lock`). */
  readonly lock: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * Holds the slugs the batch renames products to against other batches, taken after the
   * products: renames go in item order, so two batches renaming to the same slugs in different
   * orders would otherwise wait on each other's uncommitted slugs in a cycle. The second one
   * plans once the first committed. (Creates go in in slug order, which needs no hold.)
   */
  readonly holdSlugs: (slugs: ReadonlyArray<string>) => Effect.Effect<void>
  readonly newId: Effect.Effect<string>
}

/**
 * Every item is decoded and planned against context loaded once for the whole batch, then
 * written in item order: each run of creates as one multi-row insert (item by item, each in
 * its own savepoint, only if that insert is refused), updates each in a savepoint; deletes,
 * which planning has already found and locked, cannot be refused. One event per item that succeeded. Runs inside the
 * caller's tenant transaction.
 */
export const runBulk = (organizationId: string, items: ReadonlyArray<unknown>, deps: BulkDeps) =>
  Effect.gen(function*() {
    const repo = yield* ProductRepository
    const results = new Map<number, BulkResult>()
    const fail = (index: number, error: BulkError) => results.set(index, { ok: false, index, error })

    const decoded: Array<Decoded> = []
    for (const [index, item] of items.entries()) {
      const d = decodeItem(item, index, yield* deps.newId)
      if (Either.isLeft(d)) fail(index, d.left)
      else decoded.push(d.right)
    }

    const references = {
      brandIds: decoded.flatMap((d) =>
        d.op === "create" && d.input.brandId ? [d.input.brandId] : d.op === "update" && d.patch.brandId ? [d.patch.brandId] : []
      ),
      categoryIds: decoded.flatMap((d) => (d.op === "create" ? d.input.categoryIds ?? [] : d.op === "update" ? d.patch.categoryIds ?? [] : [])),
      mediaIds: decoded.flatMap((d) => uuidValuesOf(d.op === "create" ? d.input.attributes : d.op === "update" ? d.patch.attributes : undefined))
    }
    yield* deps.holdReferences(references)
    const targeted = decoded.flatMap((d) => (d.op === "create" ? [] : [d.id]))
    yield* deps.lock(targeted)
    // Read once held: a deletion of one of their categories that held them first has committed.
    const existing = targeted.length === 0 ? [] : yield* repo.findByIds(organizationId, [...new Set(targeted)])
    const state = new Map<string, ProductRecord | null>(existing.map((p) => [p.id, p]))

    const renamedTo = decoded.flatMap((d) => (d.op === "update" && d.patch.slug !== undefined ? [d.patch.slug] : []))
    yield* deps.holdSlugs(renamedTo)
    const context = yield* deps.planContext({
      ...references,
      familyIds: [
        ...decoded.flatMap((d) => (d.op === "create" ? [d.input.familyId] : d.op === "update" && d.patch.familyId ? [d.patch.familyId] : [])),
        ...existing.map((p) => p.familyId)
      ],
      slugs: [
        ...decoded.flatMap((d) => d.op !== "create" ? [] : d.input.slug !== undefined ? [d.input.slug] : generatedSlugs(d.input.name, d.id)),
        ...renamedTo
      ]
    })

    const steps: Array<Step> = []
    for (const d of decoded) {
      if (d.op === "create") {
        const planned = planCreate(context, d.input, d.id)
        if (Either.isLeft(planned)) fail(d.index, planned.left)
        else steps.push({ op: "create", index: d.index, write: planned.right, input: d.input })
        continue
      }
      const current = state.get(d.id)
      if (current === undefined || current === null) {
        fail(d.index, new NotFound({ entity: "product", id: d.id }))
        continue
      }
      if (d.op === "delete") {
        state.set(d.id, null)
        context.slugs.release(current.slug)
        steps.push({ op: "delete", index: d.index, product: current })
        continue
      }
      const plan = planUpdate(context, current, d.patch)
      if (Either.isRight(plan)) state.set(d.id, plan.right.write.product)
      steps.push({ op: "update", index: d.index, base: current, patch: d.patch, plan })
    }

    // In item order, so that a slug an item frees is free for the items after it; creates
    // next to each other go in as one multi-row insert.
    const done = new Set<number>()
    const insertAll = (creates: ReadonlyArray<CreateStep>) =>
      Effect.gen(function*() {
        const batch = yield* Effect.either(deps.nestedTransaction(repo.insert(creates.map((c) => c.write))))
        if (Either.isRight(batch)) return creates.forEach((c) => done.add(c.index))
        // In slug order, as the repository inserts a batch on Postgres: each insert holds its slug
        // until the commit, and batches falling back at once must not wait for each other in a cycle.
        for (const c of [...creates].sort((x, y) => (x.write.product.slug < y.write.product.slug ? -1 : 1))) {
          let one = yield* Effect.either(deps.nestedTransaction(repo.insert([c.write])))
          if (Either.isLeft(one) && one.left._tag === "Conflict" && c.input.slug === undefined) {
            // A concurrent write took the generated slug after it was checked: plan again with it taken.
            context.slugs.claim(c.write.product.slug)
            const again = planCreate(context, c.input, c.write.product.id)
            if (Either.isRight(again)) {
              steps[steps.indexOf(c)] = { ...c, write: again.right }
              one = yield* Effect.either(deps.nestedTransaction(repo.insert([again.right])))
            }
          }
          if (Either.isLeft(one)) fail(c.index, one.left)
          else done.add(c.index)
        }
      })
    // Each item was planned on the product as the items before it leave it. One refused when
    // written (a slug a concurrent write took) leaves the product as it was, so the items after
    // it for that product, refused by planning or not, are planned again on what the product
    // holds: they write, and announce, their own changes, never the refused item's. Their slugs
    // are then left to the unique index, as the batch's book holds what the first plans claimed.
    const written = new Map<string, ProductRecord | null>(existing.map((p) => [p.id, p]))
    const replace = (from: Step, to: Step) => {
      steps[steps.indexOf(from)] = to
    }
    const update = (planned: UpdateStep) =>
      Effect.gen(function*() {
        const current = written.get(planned.base.id)
        const plan = current === planned.base
          ? planned.plan
          : current === undefined || current === null
          ? Either.left(new NotFound({ entity: "product", id: planned.base.id }))
          : planUpdate({ ...context, slugs: new SlugBook([]) }, current, planned.patch)
        if (plan !== planned.plan) replace(planned, { ...planned, plan })
        if (Either.isLeft(plan)) {
          fail(planned.index, plan.left)
          return
        }
        if (plan.right.changedFields.length > 0) {
          const r = yield* Effect.either(deps.nestedTransaction(repo.update(plan.right.write)))
          if (Either.isLeft(r)) {
            fail(planned.index, r.left)
            return
          }
        }
        written.set(planned.base.id, plan.right.write.product)
        done.add(planned.index)
      })
    let creates: Array<CreateStep> = []
    for (const s of [...steps]) {
      if (s.op === "create") {
        creates.push(s)
        continue
      }
      if (creates.length > 0) yield* insertAll(creates)
      creates = []
      if (s.op === "update") {
        yield* update(s)
      } else {
        const current = written.get(s.product.id)
        if (current !== undefined && current !== null && current !== s.product) replace(s, { ...s, product: current })
        yield* repo.delete(organizationId, s.product.id)
        written.set(s.product.id, null)
        done.add(s.index)
      }
    }
    if (creates.length > 0) yield* insertAll(creates)

    const announced: Array<NewEvent> = []
    for (const s of steps) {
      if (!done.has(s.index)) continue
      const event = announcementOf(s)
      announced.push(event)
      results.set(s.index, { ok: true, index: s.index, id: event.entityId })
    }
    yield* emitAll(announced)
    return items.flatMap((_, index) => Option.toArray(Option.fromNullable(results.get(index))))
  })
