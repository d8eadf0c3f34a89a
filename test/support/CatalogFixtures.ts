import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { Cause, Effect, Exit, Schema } from "effect"
import type { Brands } from "../../core/catalog/Brands.js"
import type { Categories } from "../../core/catalog/Categories.js"
import { Products } from "../../core/products/Products.js"
import { Attributes } from "../../core/schema/Attributes.js"
import { Families } from "../../core/schema/Families.js"
import { UnitOfWork } from "../../core/shared/UnitOfWork.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import type { Organizations } from "../../core/tenancy/Organizations.js"
import { newTenant } from "./Catalog.js"

const EventRow = Schema.Struct({ name: Schema.String, entityId: Schema.String, payload: Schema.Unknown })

export const eventsOf = (organizationId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const uow = yield* UnitOfWork
    const rows = yield* uow.tenant(organizationId, sql`select name, entity_id, payload from events where organization_id = ${organizationId} order by seq`)
    return (yield* Schema.decodeUnknown(Schema.Array(EventRow))(rows)).map((e) => ({
      ...e,
      payload: typeof e.payload === "string" ? JSON.parse(e.payload) : e.payload
    }))
  }).pipe(Effect.orDie)

export const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert(Exit.isFailure(exit), "expected a failure")
    return JSON.stringify(exit.cause)
  })

/** "ok", the tag of the one failure, or the whole cause (a defect, an interruption). */
export const outcomeOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isSuccess(exit) ? "ok" : Cause.isFailType(exit.cause) ? exit.cause.error._tag : Cause.pretty(exit.cause)

/** The outcomes (see `outcomeOf`) of six runs of `effect` at once, sorted: failures' tags before "ok". */
export const raced = <E extends { readonly _tag: string }, R>(effect: Effect.Effect<unknown, E, R>) =>
  Effect.map(Effect.all(Array.from({ length: 6 }, () => Effect.exit(effect)), { concurrency: "unbounded" }), (exits) => exits.map(outcomeOf).sort())

/** What six racing deletions of one record answer: one succeeds, the others find nothing. */
export const ONE_DELETION = ["NotFound", "NotFound", "NotFound", "NotFound", "NotFound", "ok"]

/** How many `name` events the organization recorded. */
export const eventCount = (organizationId: string, name: string) =>
  Effect.map(eventsOf(organizationId), (events) => events.filter((e) => e.name === name).length)

/**
 * Runs every one of `writes` twice, all at once, and answers the `changed_fields` of the `name`
 * events they recorded, sorted: of two identical writes, only the first changes anything, and
 * the second records its event with none (`[]`, sorted last).
 */
export const racedChanges = <R>(organizationId: string, name: string, writes: ReadonlyArray<Effect.Effect<unknown, unknown, R>>) =>
  Effect.gen(function*() {
    const before = (yield* eventsOf(organizationId)).length
    yield* Effect.all([...writes, ...writes], { concurrency: "unbounded", discard: true })
    return (yield* eventsOf(organizationId)).slice(before).filter((e) => e.name === name)
      .map((e) => JSON.stringify((e.payload as { readonly changed_fields?: unknown }).changed_fields)).sort()
  })

export const val = (value: unknown) => [{ locale: null, channel: null, value }]

/** A family with `price` (money), `weight` (number, required), `blurb` (text) and `size` (measurement). */
export const schemaFixture = Effect.gen(function*() {
  const attributes = yield* Attributes
  const families = yield* Families
  const price = yield* attributes.create({ code: "price", label: { en: "Price" }, type: "money" })
  const weight = yield* attributes.create({ code: "weight", label: { en: "Weight" }, type: "number", requirement: "required" })
  const blurb = yield* attributes.create({ code: "blurb", label: { en: "Blurb" }, type: "text" })
  const size = yield* attributes.create({ code: "size", label: { en: "Size" }, type: "measurement" })
  const family = yield* families.create({ code: "shoes", label: { en: "Shoes" } })
  for (const a of [price, weight, blurb, size]) yield* families.attach(family.id, { attributeId: a.id })
  return { family, price, weight, blurb }
})

/** Creates a product of the family by name, giving its id. */
export const named = (familyId: string, name: string) => Effect.flatMap(Products, (products) => Effect.map(products.create({ familyId, name }), (p) => p.id))

/** A search's ids and total. */
export const searched = (q: string, page: { readonly limit?: number; readonly offset?: number } = {}) =>
  Effect.flatMap(Products, (products) =>
    Effect.map(products.list({ q, ...page, withTotal: true }), (l) => ({ ids: l.data.map((p) => p.id), total: l.total })))

/** Runs `f` as an admin of a new organization, giving its result and the organization's id. */
export const inTenant = <A, Err>(
  f: Effect.Effect<A, Err, CurrentTenant | Products | Categories | Brands | Attributes | Families | SqlClient.SqlClient | UnitOfWork | Organizations>
) =>
  Effect.gen(function*() {
    const { organization, tenant } = yield* newTenant
    return yield* Effect.provideService(f, CurrentTenant, tenant).pipe(Effect.map((a) => ({ result: a, organizationId: organization.id })))
  })
