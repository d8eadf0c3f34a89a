import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Fiber, FiberSet, Schema } from "effect"
import { ProductStatus } from "../../core/products/Product.js"
import { chunksOf } from "./Columns.js"
import { changeFeed } from "./EventChangeFeed.js"
import { makeFacetCopies } from "./FacetCopies.js"
import { count, type FacetQuestion, type FacetTallies, TenantFacets } from "./TenantFacets.js"
import { makeTurns } from "./Turns.js"

/** Rows that name their products as one space-separated list (ids and canonical tags hold no spaces). */
const GroupRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  familyId: Schema.String,
  status: ProductStatus,
  brandId: Schema.NullOr(Schema.String),
  sourceConnectorId: Schema.NullOr(Schema.String),
  productIds: Schema.String
})))
const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String, productIds: Schema.String })))
const CursorRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ createdAt: Schema.String, id: Schema.String })))

/**
 * Deleting these changes products (a brand or connector cleared, links gone, or every product
 * gone with its organization) that no product event names.
 */
const RESHAPING = new Set(["brand.deleted", "category.deleted", "connector.deleted", "organization.deleted"])
const reshapes = (event: { readonly name: string }) => RESHAPING.has(event.name)

/** Beyond this many events since the last look, reading everything again is cheaper than catching up. */
const CATCH_UP_LIMIT = 5_000

interface FacetIndexLimits {
  /** Products kept in memory over all organizations; the least recently counted go first. */
  readonly maxProducts: number
  /** Organizations with a copy in memory; the least recently counted go first. */
  readonly maxOrganizations: number
  /** Products read per step of making a copy: a step is a few short statements, and requests run between steps. */
  readonly buildStep: number
}

/** Where a step of making a copy starts: after this product in creation order. */
interface Cursor {
  readonly createdAt: string
  readonly id: string
}

/**
 * Facet counts from memory, per organization, kept in step with the database through the
 * organization's events: every write that changes a product appends one in the same
 * transaction, so the events since the copy's point tell what changed (`changeFeed`). Products
 * named by those events are read again; a deleted brand, category or connector (which changes
 * products without naming them) has everything read again.
 *
 * A copy is made in the background, a few thousand products at a time, so that neither the
 * connection nor the event loop is held for long; until it is ready, `tallies` answers
 * `undefined` and facets are counted from the indexes. Writes made while it is being made
 * come after the point it started from, so the first look afterwards reads them.
 *
 * It holds the counted columns, categories and tags; the products that pass the other filters
 * are read by the caller and named in the question (`only`).
 */
export const makeFacetIndex = (sql: SqlClient.SqlClient, limits: FacetIndexLimits) =>
  Effect.gen(function*() {
    const tenants = makeFacetCopies<TenantFacets>(limits)
    const building = new Map<string, Fiber.RuntimeFiber<void>>()
    // Builds run in the layer's context, never in the transaction of the request that asked.
    const fork = yield* FiberSet.runtime(yield* FiberSet.make<void>())<never>()

    const feed = changeFeed(sql)
    // The products of a group as one space-separated list (ids and canonical tags hold no spaces).
    const idList = (column: string) =>
      sql.onDialectOrElse({ pg: () => sql`string_agg(${sql(column)}::text, ' ')`, orElse: () => sql`group_concat(${sql(column)}, ' ')` })

    // Aggregated by what is counted, a few hundred rows carry every product: far fewer rows to
    // read and decode than one per product, link or tag.
    const readProducts = (
      facets: TenantFacets,
      organizationId: string,
      products: (column: string) => Fragment,
      replacing: ReadonlyArray<string> = []
    ) =>
      Effect.gen(function*() {
        const groups = yield* sql`select family_id, status, brand_id, source_connector_id, ${idList("id")} as product_ids
          from products where organization_id = ${organizationId} and ${products("id")}
          group by family_id, status, brand_id, source_connector_id`.pipe(Effect.flatMap(GroupRows))
        const links = yield* sql`select category_id as value, ${idList("product_id")} as product_ids
          from product_categories where organization_id = ${organizationId} and ${products("product_id")}
          group by category_id`.pipe(Effect.flatMap(ValueRows))
        const tags = yield* sql`select tag as value, ${idList("product_id")} as product_ids
          from product_tags where organization_id = ${organizationId} and ${products("product_id")}
          group by tag`.pipe(Effect.flatMap(ValueRows))
        for (const id of replacing) facets.remove(id)
        for (const g of groups) {
          const group = facets.groupNumber({ familyId: g.familyId, status: g.status, brandId: g.brandId, connectorId: g.sourceConnectorId })
          for (const id of g.productIds.split(" ")) facets.put(id, group)
        }
        for (const l of links) for (const id of l.productIds.split(" ")) facets.file(id, l.value)
        for (const t of tags) for (const id of t.productIds.split(" ")) facets.tag(id, t.value)
      })

    /** The products after `from` and up to `to` in creation order (`products_created`). */
    const between = (organizationId: string, from: Cursor | undefined, to: Cursor | undefined) => {
      const range = sql.and([
        from === undefined ? sql`1 = 1` : sql`(created_at, id) > (${from.createdAt}, ${from.id})`,
        to === undefined ? sql`1 = 1` : sql`(created_at, id) <= (${to.createdAt}, ${to.id})`
      ])
      return (column: string) =>
        column === "id" ? range : sql`${sql(column)} in (select id from products where organization_id = ${organizationId} and ${range})`
    }

    /** A new copy, read step by step; current as of the point its events stood at when it started. */
    const build = (organizationId: string) =>
      Effect.gen(function*() {
        const facets = new TenantFacets(yield* feed.head(organizationId))
        let from: Cursor | undefined
        for (;;) {
          const [to] = yield* sql`select created_at, id from products
            where organization_id = ${organizationId} and ${between(organizationId, from, undefined)("id")}
            order by created_at, id limit 1 offset ${limits.buildStep - 1}`.pipe(Effect.flatMap(CursorRows))
          yield* readProducts(facets, organizationId, between(organizationId, from, to))
          if (to === undefined) return facets
          from = to
          yield* Effect.yieldNow()
        }
      })

    const startBuild = (organizationId: string) => {
      if (building.has(organizationId)) return
      const fiber = fork(
        build(organizationId).pipe(
          Effect.tap((facets) => Effect.sync(() => tenants.remember(organizationId, facets))),
          Effect.asVoid,
          // Facets are counted from the indexes until a later request tries again.
          Effect.catchAllCause((cause) => Effect.logWarning("making the facet copy failed", cause)),
          Effect.ensuring(Effect.sync(() => building.delete(organizationId)))
        )
      )
      building.set(organizationId, fiber)
    }

    // Catching a copy up reads the point its events stand at, then the products named since the
    // copy's own point, then moves it there. Two requests doing so at once (Postgres serves them
    // on several connections) could leave a product as the older of two reads with the newer
    // point, so each organization's catch-ups take turns. A turn is always taken inside a
    // transaction: its holder has its connection already and waits for nothing another waiter
    // holds.
    const { inTurn } = makeTurns()

    /**
     * The organization's copy as of its events now, caught up in place, or `undefined` when it
     * has none that can be caught up. Run it in turn (`inTurn`), inside a transaction.
     */
    const caughtUp = (organizationId: string): Effect.Effect<TenantFacets | undefined, unknown> =>
      Effect.gen(function*() {
        const known = tenants.get(organizationId)
        if (known === undefined) return undefined
        const head = yield* feed.head(organizationId)
        if (known.cursor !== head) {
          const events = yield* feed.changes(organizationId, known.cursor, head, CATCH_UP_LIMIT + 1)
          if (events.length > CATCH_UP_LIMIT || events.some(reshapes)) {
            tenants.forget(organizationId)
            return undefined
          }
          const ids = [...new Set(events.filter((e) => e.entityType === "product").map((e) => e.entityId))]
          for (const chunk of chunksOf(ids, 500)) yield* readProducts(known, organizationId, (column) => sql.in(column, chunk), chunk)
          known.cursor = head
        }
        tenants.remember(organizationId, known)
        return known
      })

    /** The counts from the copy, or `undefined` while it is being made; call inside the read's transaction. */
    const tallies = (organizationId: string, question: FacetQuestion): Effect.Effect<FacetTallies | undefined, unknown> =>
      Effect.gen(function*() {
        const counted = yield* inTurn(
          organizationId,
          Effect.map(caughtUp(organizationId), (facets) => (facets === undefined ? undefined : count(facets, question)))
        )
        if (counted === undefined) startBuild(organizationId)
        return counted
      })

    /** Waits for the copy being made, making one if there is none, and brings it up to date. */
    const ready = (organizationId: string): Effect.Effect<void, unknown> =>
      Effect.gen(function*() {
        const fiber = building.get(organizationId)
        if (fiber !== undefined) yield* Fiber.await(fiber)
        const catchUp = sql.withTransaction(inTurn(organizationId, caughtUp(organizationId)))
        if ((yield* catchUp) !== undefined) return
        tenants.remember(organizationId, yield* build(organizationId))
        yield* catchUp
      })

    return { tallies, ready }
  })

export type FacetIndex = Effect.Effect.Success<ReturnType<typeof makeFacetIndex>>
