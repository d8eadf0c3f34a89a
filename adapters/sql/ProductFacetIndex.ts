import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Fiber, FiberSet, Schema } from "effect"
import { ProductStatus } from "../../core/products/Product.js"
import type { ProductFilter } from "../../core/products/ProductFilter.js"
import { chunksOf, IntColumn } from "./Columns.js"

/** What a product is counted by: the four columns every facet groups on. */
export interface Group {
  readonly familyId: string
  readonly status: ProductStatus
  readonly brandId: string | null
  readonly connectorId: string | null
}

export interface CategoryNode {
  readonly id: string
  readonly parentId: string | null
  readonly slug: string
  readonly name: string
}

/** The raw counts a facet answer is made of; `FacetCounts` names and caps them. */
export interface FacetTallies {
  /** Products per group, with the category and tag filters applied and the four column filters not. */
  readonly groups: ReadonlyArray<Group & { readonly count: number }>
  /** Per category: products filed in it directly, or with `includeDescendants` anywhere in its subtree. */
  readonly categories: ReadonlyMap<string, number>
  readonly tags: ReadonlyMap<string, number>
}

/** What to count. */
export interface FacetQuestion {
  readonly filter: ProductFilter
  /** Whether a group passes the filters on the four columns. */
  readonly accepts: (group: Group) => boolean
  /** The category filter's ids when it covers descendants. */
  readonly subtree: ReadonlyArray<string> | undefined
  /** The organization's categories, to count subtrees. */
  readonly tree: ReadonlyArray<CategoryNode>
  /**
   * The products that pass the filters the copy does not hold (search, slug, ids,
   * `updatedSince`, an attribute range), when one applies; read by the caller.
   */
  readonly only?: ReadonlyArray<string> | undefined
}

/** Rows that name their products as one space-separated list (ids and canonical tags hold no spaces). */
const GroupRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  familyId: Schema.String,
  status: ProductStatus,
  brandId: Schema.NullOr(Schema.String),
  sourceConnectorId: Schema.NullOr(Schema.String),
  productIds: Schema.String
})))
const ValueRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ value: Schema.String, productIds: Schema.String })))
const EventRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ entityType: Schema.String, entityId: Schema.String, name: Schema.String })))
const CursorRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ createdAt: Schema.String, id: Schema.String })))
const SeqRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ seq: Schema.NullOr(IntColumn) })))
const SnapshotRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ snapshot: Schema.String })))

/** Distinct strings, numbered in the order first seen. */
class Numbering {
  readonly values: Array<string> = []
  private readonly numbers = new Map<string, number>()
  of(value: string): number {
    let n = this.numbers.get(value)
    if (n === undefined) {
      n = this.values.length
      this.values.push(value)
      this.numbers.set(value, n)
    }
    return n
  }
  find(value: string): number | undefined {
    return this.numbers.get(value)
  }
}

const NONE: ReadonlyArray<number> = []

/** Changed slots read from their lists before the copy is packed again (or a 32nd of the slots, if more). */
const REPACK_AFTER = 1_000

/** `list` with `n` appended: in place, unless it is the shared empty list. */
const added = (list: ReadonlyArray<number>, n: number): ReadonlyArray<number> => {
  if (list === NONE) return [n]
  ;(list as Array<number>).push(n)
  return list
}

/**
 * Every slot's group, categories and tags in flat arrays, the form a count walks fastest.
 * Slots changed since (`changed`) are read from the lists instead, until so many have changed
 * that packing again pays.
 */
interface Packed {
  readonly changed: Uint8Array
  readonly group: Int32Array
  /** Slot `s`'s categories are `categories[categoryStart[s] .. categoryStart[s + 1])`; tags alike. */
  readonly categoryStart: Int32Array
  readonly categories: Int32Array
  readonly tagStart: Int32Array
  readonly tags: Int32Array
}

const pack = (group: ReadonlyArray<number>, lists: ReadonlyArray<ReadonlyArray<number>>) => {
  const start = new Int32Array(group.length + 1)
  let total = 0
  for (let s = 0; s < group.length; s++) {
    start[s] = total
    total += lists[s]!.length
  }
  start[group.length] = total
  const flat = new Int32Array(total)
  for (let s = 0, k = 0; s < group.length; s++) {
    const list = lists[s]!
    for (let i = 0; i < list.length; i++) flat[k++] = list[i]!
  }
  return { start, flat }
}

/**
 * One organization's products reduced to numbers: each product's group, categories and tags.
 * Counting a facet is then a pass over arrays, with no row read.
 */
class TenantFacets {
  readonly groups = new Numbering()
  readonly groupOf: Array<Group> = []
  readonly categories = new Numbering()
  readonly tags = new Numbering()
  private readonly slotOf = new Map<string, number>()
  private readonly free: Array<number> = []
  /** Per slot: the group number, or -1 for a free slot. */
  readonly group: Array<number> = []
  readonly categoriesOf: Array<ReadonlyArray<number>> = []
  readonly tagsOf: Array<ReadonlyArray<number>> = []
  private packed: Packed | undefined
  private changes = 0

  /** Where the copy stands among the organization's events (see `changeFeed`). */
  constructor(public cursor: string) {}

  /** A mark per slot: 1 for the slots of `ids` (products the copy does not hold are left out). */
  marks(ids: ReadonlyArray<string>): Uint8Array {
    const out = new Uint8Array(this.group.length)
    for (const id of ids) {
      const slot = this.slotOf.get(id)
      if (slot !== undefined) out[slot] = 1
    }
    return out
  }

  /** The slots packed for counting. */
  get flat(): Packed {
    if (this.packed === undefined || this.changes > Math.max(REPACK_AFTER, this.group.length / 32)) {
      const categories = pack(this.group, this.categoriesOf)
      const tags = pack(this.group, this.tagsOf)
      this.changes = 0
      this.packed = {
        changed: new Uint8Array(this.group.length),
        group: new Int32Array(this.group),
        categoryStart: categories.start,
        categories: categories.flat,
        tagStart: tags.start,
        tags: tags.flat
      }
    }
    return this.packed
  }

  private touch(slot: number) {
    const packed = this.packed
    if (packed === undefined || slot >= packed.changed.length || packed.changed[slot] === 1) return
    packed.changed[slot] = 1
    this.changes++
  }

  get size() {
    return this.slotOf.size
  }

  /** The group's number. */
  groupNumber(g: Group): number {
    const group = this.groups.of(`${g.familyId}\u0000${g.status}\u0000${g.brandId ?? ""}\u0000${g.connectorId ?? ""}`)
    if (group === this.groupOf.length) this.groupOf.push(g)
    return group
  }

  /** Places a product in a group, with no categories or tags yet. */
  put(id: string, group: number) {
    let slot = this.slotOf.get(id)
    if (slot === undefined) {
      slot = this.free.pop() ?? this.group.length
      this.slotOf.set(id, slot)
    }
    this.touch(slot)
    this.group[slot] = group
    this.categoriesOf[slot] = NONE
    this.tagsOf[slot] = NONE
  }

  /** Files a placed product in a category. */
  file(id: string, category: string) {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.touch(slot)
    this.categoriesOf[slot] = added(this.categoriesOf[slot]!, this.categories.of(category))
  }

  /** Tags a placed product. */
  tag(id: string, tag: string) {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.touch(slot)
    this.tagsOf[slot] = added(this.tagsOf[slot]!, this.tags.of(tag))
  }

  remove(id: string) {
    const slot = this.slotOf.get(id)
    if (slot === undefined) return
    this.slotOf.delete(id)
    this.touch(slot)
    this.group[slot] = -1
    this.categoriesOf[slot] = NONE
    this.tagsOf[slot] = NONE
    this.free.push(slot)
  }
}

/** Deleting these changes products (a brand or connector cleared, links gone) that no product event names. */
const RESHAPING = new Set(["brand.deleted", "category.deleted", "connector.deleted"])
const reshapes = (event: { readonly name: string }) => RESHAPING.has(event.name)

/** Beyond this many events since the last look, reading everything again is cheaper than catching up. */
const CATCH_UP_LIMIT = 5_000

/**
 * Where an organization's events stand, and the events between two such points (`changes`).
 * SQLite numbers events in commit order (one writer at a time), so the newest number is the
 * point. Postgres numbers them as they are written, so a write can commit after a newer number
 * was read; there the point is a snapshot, and the events between two are those of the
 * transactions the first did not see and the second did.
 */
const changeFeed = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => ({
      head: (_organizationId: string) =>
        sql`select pg_current_snapshot()::text as snapshot`.pipe(Effect.flatMap(SnapshotRows), Effect.map((rows) => rows[0]?.snapshot ?? "")),
      changes: (organizationId: string, from: string, to: string, limit: number) =>
        sql`select entity_type, entity_id, name from events
          where organization_id = ${organizationId} and xact >= pg_snapshot_xmin(${from}::pg_snapshot)
            and not pg_visible_in_snapshot(xact, ${from}::pg_snapshot) and pg_visible_in_snapshot(xact, ${to}::pg_snapshot)
          order by seq limit ${limit}`.pipe(Effect.flatMap(EventRows))
    }),
    orElse: () => ({
      head: (organizationId: string) =>
        sql`select max(seq) as seq from events where organization_id = ${organizationId}`.pipe(
          Effect.flatMap(SeqRows),
          Effect.map((rows) => String(rows[0]?.seq ?? 0))
        ),
      changes: (organizationId: string, from: string, to: string, limit: number) =>
        sql`select entity_type, entity_id, name from events
          where organization_id = ${organizationId} and seq > ${Number(from)} and seq <= ${Number(to)}
          order by seq limit ${limit}`.pipe(Effect.flatMap(EventRows))
    })
  })

export interface FacetIndexLimits {
  /** Products kept in memory over all organizations; the least recently counted go first. */
  readonly maxProducts: number
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
    const tenants = new Map<string, TenantFacets>()
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

    const remember = (organizationId: string, facets: TenantFacets) => {
      // Most recently used last; evict from the front.
      tenants.delete(organizationId)
      tenants.set(organizationId, facets)
      let total = 0
      for (const t of tenants.values()) total += t.size
      for (const [id, t] of tenants) {
        if (total <= limits.maxProducts || id === organizationId) break
        tenants.delete(id)
        total -= t.size
      }
    }

    const startBuild = (organizationId: string) => {
      if (building.has(organizationId)) return
      const fiber = fork(
        build(organizationId).pipe(
          Effect.tap((facets) => Effect.sync(() => remember(organizationId, facets))),
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
    // holds. One per organization ever counted in this process.
    const turns = new Map<string, Effect.Semaphore>()
    const inTurn = <A, E>(organizationId: string, effect: Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        let turn = turns.get(organizationId)
        if (turn === undefined) {
          turn = Effect.unsafeMakeSemaphore(1)
          turns.set(organizationId, turn)
        }
        return turn.withPermits(1)(effect)
      })

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
            tenants.delete(organizationId)
            return undefined
          }
          const ids = [...new Set(events.filter((e) => e.entityType === "product").map((e) => e.entityId))]
          for (const chunk of chunksOf(ids, 500)) yield* readProducts(known, organizationId, (column) => sql.in(column, chunk), chunk)
          known.cursor = head
        }
        remember(organizationId, known)
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
        remember(organizationId, yield* build(organizationId))
        yield* catchUp
      })

    return { tallies, ready }
  })

export type FacetIndex = Effect.Effect.Success<ReturnType<typeof makeFacetIndex>>

const count = (facets: TenantFacets, { accepts, filter, only, subtree, tree }: FacetQuestion): FacetTallies => {
  const groupCount = facets.groupOf.length
  const allowed = only === undefined ? undefined : facets.marks(only)
  const groupOk = new Uint8Array(groupCount)
  for (let g = 0; g < groupCount; g++) groupOk[g] = accepts(facets.groupOf[g]!) ? 1 : 0

  // The category filter as a mark per category number; a category no product is filed in matches none.
  const categoryFilter = filter.categoryId === undefined ? undefined : new Uint8Array(facets.categories.values.length)
  if (categoryFilter !== undefined) {
    for (const id of subtree ?? [filter.categoryId!]) {
      const n = facets.categories.find(id)
      if (n !== undefined) categoryFilter[n] = 1
    }
  }
  // Tags the filter requires; an unknown one matches no product.
  const requiredTags = filter.tags?.map((t) => facets.tags.find(t) ?? -1)

  // With `includeDescendants`, each category number's own category and ancestors.
  const lineage: Array<ReadonlyArray<number>> | undefined = filter.includeDescendants ? [] : undefined
  if (lineage !== undefined) {
    const parentOf = new Map(tree.map((c) => [c.id, c.parentId]))
    for (let n = 0; n < facets.categories.values.length; n++) {
      const out: Array<number> = []
      const seen = new Set<string>()
      for (let at: string | null | undefined = facets.categories.values[n]; at != null && !seen.has(at) && out.length < 1000; at = parentOf.get(at)) {
        seen.add(at)
        if (parentOf.has(at)) out.push(facets.categories.of(at))
      }
      lineage.push(out)
    }
  }

  const groupTally = new Float64Array(groupCount)
  const categoryTally = new Float64Array(facets.categories.values.length)
  const tagTally = new Float64Array(facets.tags.values.length)
  // Per category, the last product counted there: a product filed twice in one subtree counts once.
  const countedFor = new Int32Array(facets.categories.values.length).fill(-1)

  const packed = facets.flat
  const slots = facets.group.length
  for (let slot = 0; slot < slots; slot++) {
    const fresh = slot < packed.changed.length && packed.changed[slot] === 0
    const group = fresh ? packed.group[slot]! : facets.group[slot]!
    if (group < 0 || (allowed !== undefined && allowed[slot] !== 1)) continue
    const categoryList: ArrayLike<number> = fresh ? packed.categories : facets.categoriesOf[slot]!
    const c0 = fresh ? packed.categoryStart[slot]! : 0
    const c1 = fresh ? packed.categoryStart[slot + 1]! : categoryList.length
    const tagList: ArrayLike<number> = fresh ? packed.tags : facets.tagsOf[slot]!
    const t0 = fresh ? packed.tagStart[slot]! : 0
    const t1 = fresh ? packed.tagStart[slot + 1]! : tagList.length
    let inCategory = true
    if (categoryFilter !== undefined) {
      inCategory = false
      for (let i = c0; i < c1; i++) {
        if (categoryFilter[categoryList[i]!] === 1) {
          inCategory = true
          break
        }
      }
    }
    let hasTags = true
    if (requiredTags !== undefined) {
      for (const required of requiredTags) {
        let found = false
        for (let i = t0; i < t1 && !found; i++) found = tagList[i] === required
        if (!found) hasTags = false
      }
    }
    if (inCategory && hasTags) groupTally[group]!++
    if (groupOk[group] !== 1) continue
    if (hasTags) {
      for (let i = c0; i < c1; i++) {
        const c = categoryList[i]!
        if (lineage === undefined) {
          categoryTally[c]!++
          continue
        }
        for (const a of lineage[c]!) {
          if (countedFor[a] === slot) continue
          countedFor[a] = slot
          categoryTally[a]!++
        }
      }
    }
    if (inCategory) for (let i = t0; i < t1; i++) tagTally[tagList[i]!]!++
  }

  const groups: Array<Group & { readonly count: number }> = []
  for (let g = 0; g < groupCount; g++) if (groupTally[g]! > 0) groups.push({ ...facets.groupOf[g]!, count: groupTally[g]! })
  const nonZero = (values: ReadonlyArray<string>, tally: Float64Array) => {
    const out = new Map<string, number>()
    for (let n = 0; n < tally.length; n++) if (tally[n]! > 0) out.set(values[n]!, tally[n]!)
    return out
  }
  return { groups, categories: nonZero(facets.categories.values, categoryTally), tags: nonZero(facets.tags.values, tagTally) }
}
