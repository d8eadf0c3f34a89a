import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Array, Effect, Layer, Schema } from "effect"
import { ProductStatus, type ProductRecord } from "../../core/products/Product.js"
import type { ProductFilter, ProductPage, ProductSort } from "../../core/products/ProductFilter.js"
import { ProductRepository, type ProductWrite } from "../../core/products/ProductRepository.js"
import { AttributeType } from "../../core/schema/AttributeValues.js"
import { Conflict } from "../../core/shared/Errors.js"
import { categoryTreeSize } from "./CategoryTreeSize.js"
import { chunksOf, IntColumn, JsonColumn, StoredValuesColumn, toJson } from "./Columns.js"
import { denseFilters } from "./ProductDensity.js"
import { makeFacetIndex } from "./ProductFacetIndex.js"
import { facetsOf } from "./ProductFacets.js"
import { productsOf, type SearchTier, searchOf } from "./ProductSearch.js"
import { categoryIdsJson, makeFindJson, productJsonOf } from "./ProductJsonRead.js"
import { productConditions } from "./ProductWhere.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { idIn } from "./IdLists.js"
import { holdProducts } from "./PresentValues.js"
import { syncProductNumbers } from "./ProductNumbers.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  familyId: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  status: ProductStatus,
  brandId: Schema.NullOr(Schema.String),
  attributes: StoredValuesColumn,
  tags: JsonColumn(Schema.Array(Schema.String)),
  sourceConnectorId: Schema.NullOr(Schema.String),
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
/** A row with its category ids aggregated in position order, as `withCategoryIds` selects it. */
const decodeRecords = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...Row.fields, categoryIds: JsonColumn(Schema.Array(Schema.String)) })))
const SlugRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ slug: Schema.String })))
const IdRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))
const CountRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: IntColumn })))
const ItemJsonRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, json: Schema.String })))
const AttributeRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String, type: AttributeType })))

/** The record's columns, never the dialect's extras (SQLite's seq, Postgres' search vector). */
const COLUMNS = `p.id, p.organization_id, p.family_id, p.name, p.slug, p.status, p.brand_id, p.attributes, p.tags,
  p.source_connector_id, p.created_by, p.updated_by, p.created_at, p.updated_at`

const SORT_COLUMNS: Readonly<Record<"name" | "slug" | "status" | "updatedAt" | "createdAt", string>> = {
  name: "p.name",
  slug: "p.slug",
  status: "p.status",
  updatedAt: "p.updated_at",
  createdAt: "p.created_at"
}

/** Reads a list query's rows as one kind of item. */
type Read<A> = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) => Effect.Effect<ReadonlyArray<A>>

/** Rows per multi-row insert: far below both drivers' bound-parameter limits. */
const chunks = <A>(rows: ReadonlyArray<A>) => chunksOf(rows, 500)

const productColumns = (w: ProductWrite) => {
  const p = w.product
  return {
    id: p.id,
    organizationId: p.organizationId,
    familyId: p.familyId,
    name: p.name,
    slug: p.slug,
    status: p.status,
    brandId: p.brandId,
    attributes: toJson(p.attributes),
    tags: toJson(p.tags),
    sourceConnectorId: p.sourceConnectorId,
    searchText: w.index.searchText,
    nameText: w.index.nameText,
    createdBy: p.createdBy,
    updatedBy: p.updatedBy,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt
  }
}

/** Products whose facet columns are kept in memory, over all organizations (some 350 bytes each). */
const FACET_INDEX_PRODUCTS = 1_000_000
/** Organizations with a facet copy in memory (an empty copy is some 3 KB). */
const FACET_INDEX_ORGANIZATIONS = 10_000

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const facetIndex = yield* makeFacetIndex(sql, { maxProducts: FACET_INDEX_PRODUCTS, maxOrganizations: FACET_INDEX_ORGANIZATIONS, buildStep: 5_000 })

  const slugConflict = (writes: ReadonlyArray<ProductWrite>) =>
    new Conflict({ message: writes.length === 1 ? `product slug ${writes[0]?.product.slug} is taken` : "a product slug is taken" })

  /** Tags, category links and sortable numbers of the products, as rows. */
  const sideRows = (writes: ReadonlyArray<ProductWrite>) => ({
    tags: writes.flatMap((w) => w.product.tags.map((tag) => ({ organizationId: w.product.organizationId, productId: w.product.id, tag }))),
    links: writes.flatMap((w) =>
      w.product.categoryIds.map((categoryId, position) => ({
        organizationId: w.product.organizationId,
        productId: w.product.id,
        categoryId,
        position,
        familyId: w.product.familyId,
        status: w.product.status,
        brandId: w.product.brandId,
        sourceConnectorId: w.product.sourceConnectorId
      }))
    ),
    numbers: writes.flatMap((w) =>
      w.index.numbers.map((n) => ({ organizationId: w.product.organizationId, productId: w.product.id, attributeId: n.attributeId, value: n.value }))
    )
  })

  /** The side rows of new products, in multi-row inserts. */
  const insertSideRows = (writes: ReadonlyArray<ProductWrite>) =>
    Effect.gen(function*() {
      const { links, numbers, tags } = sideRows(writes)
      for (const chunk of chunks(tags)) yield* sql`insert into product_tags ${sql.insert(chunk)}`
      for (const chunk of chunks(links)) yield* sql`insert into product_categories ${sql.insert(chunk)}`
      for (const chunk of chunks(numbers)) yield* sql`insert into product_numbers ${sql.insert(chunk)}`
    })

  /** The product's rows in `table` whose `column` is none of `keep`. */
  const deleteOthers = (table: string, productId: string, column: string, keep: ReadonlyArray<string>) =>
    keep.length === 0
      ? sql`delete from ${sql(table)} where product_id = ${productId}`
      : sql`delete from ${sql(table)} where product_id = ${productId} and not ${sql.in(column, keep)}`

  /**
   * Brings an updated product's side rows in line with `write`, writing only the rows that
   * differ: an update that leaves its tags, categories and numbers alone touches none of
   * their indexes. Compared with what is stored, not with what the caller last read.
   */
  const syncSideRows = (write: ProductWrite) =>
    Effect.gen(function*() {
      const { id } = write.product
      const { links, numbers, tags } = sideRows([write])
      yield* deleteOthers("product_tags", id, "tag", tags.map((t) => t.tag))
      if (tags.length > 0) yield* sql`insert into product_tags ${sql.insert(tags)} on conflict (product_id, tag) do nothing`
      yield* deleteOthers("product_categories", id, "category_id", links.map((l) => l.categoryId))
      if (links.length > 0) {
        yield* sql`insert into product_categories ${sql.insert(links)} on conflict (product_id, category_id) do update set
          position = excluded.position, family_id = excluded.family_id, status = excluded.status,
          brand_id = excluded.brand_id, source_connector_id = excluded.source_connector_id
          where product_categories.position <> excluded.position or product_categories.family_id <> excluded.family_id
            or product_categories.status <> excluded.status
            or product_categories.brand_id is distinct from excluded.brand_id
            or product_categories.source_connector_id is distinct from excluded.source_connector_id`
      }
      yield* syncProductNumbers(sql, id, numbers)
    })

  /** The record's columns and its category ids, in one statement. */
  const withCategoryIds = `${COLUMNS}, ${categoryIdsJson(sql)} as category_ids`

  const selectRecords = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>): Effect.Effect<ReadonlyArray<ProductRecord>> =>
    statement.pipe(Effect.flatMap(decodeRecords), Effect.orDie)

  /**
   * The category and its descendants, for `includeDescendants`. Each step seeks the children
   * of one category: `cross join` keeps SQLite from scanning the organization's categories for
   * every category it reaches instead, which a tree of tens of thousands never finished.
   */
  const subtreeOf = (organizationId: string, filter: ProductFilter) =>
    filter.categoryId === undefined || !filter.includeDescendants
      ? Effect.succeed(undefined)
      : sql`with recursive tree(id, depth) as (
              select id, 0 from categories where organization_id = ${organizationId} and id = ${filter.categoryId}
              union all
              select c.id, tree.depth + 1 from tree cross join categories c
              where c.parent_id = tree.id and c.organization_id = ${organizationId} and tree.depth < (${categoryTreeSize(sql, organizationId)})
            )
            select id from tree`.pipe(Effect.flatMap(IdRows), Effect.map((rows) => rows.map((r) => r.id)), Effect.orDie)

  const where = (conditions: ReadonlyArray<Fragment>) => sql.and(conditions)
  const asc = sql.literal("asc")

  /**
   * The products of one page, in `order` (a sort key, then optionally the id, both in `dir`).
   * The page is ordered and cut on narrow rows, the id and the key, and only its own rows are
   * then read whole: the databases make a row's columns before they skip it for the offset or
   * put it into a sort, so reading whole rows made the item of every product the offset
   * passed, or of every match a sort without an index had to order.
   */
  const narrowPage = <A>(
    columns: string,
    read: Read<A>,
    from: Fragment,
    conditions: ReadonlyArray<Fragment>,
    key: Fragment,
    dir: Fragment,
    byId: boolean,
    take: number,
    offset: number
  ) =>
    read(sql`select ${sql.literal(columns)} from (
        select p.id as page_id, ${key} as page_key from ${from} where ${where(conditions)}
        order by ${key} ${dir}${byId ? sql`, p.id ${dir}` : sql.literal("")} limit ${take} offset ${offset}
      ) page join products p on p.id = page.page_id
      order by page.page_key ${dir}, page.page_id ${dir}`)

  /** One page of a list, each product read through `read` from the `columns` of `products p`. */
  const pageOf = <A>(columns: string, read: Read<A>) =>
  (
    organizationId: string,
    filter: ProductFilter,
    sort: ProductSort,
    page: { readonly limit: number; readonly offset: number; readonly withTotal: boolean }
  ): Effect.Effect<ProductPage<A>> =>
    Effect.gen(function*() {
      const subtree = yield* subtreeOf(organizationId, filter)
      const conditions = productConditions(sql, organizationId, filter, subtree, [], yield* denseFilters(sql, organizationId, filter, subtree))
      const dir = sql.literal(sort.dir === "desc" ? "desc" : "asc")
      const take = page.limit + 1
      let rows: ReadonlyArray<A>
      if (sort.by === "attribute") {
        rows = yield* attributeSorted(columns, read, productsOf(sql, filter), conditions, sort.attributeId, dir, take, page.offset)
      } else if (sort.by === "relevance") {
        const others = productConditions(sql, organizationId, { ...filter, search: undefined }, subtree)
        const tiers = filter.search === undefined
          ? [{ from: sql`products p`, where: sql`1 = 1`, order: sql`p.id` }]
          : searchOf(sql, filter.search).tiers
        rows = yield* relevanceSorted(columns, read, tiers, others, take, page.offset)
      } else {
        const column = sql.literal(SORT_COLUMNS[sort.by])
        rows = yield* narrowPage(columns, read, productsOf(sql, filter), conditions, column, dir, true, take, page.offset)
      }
      // Counting visits every match, which the link-table lookups do best.
      const total = page.withTotal
        ? yield* sql`select cast(count(*) as integer) as n from ${productsOf(sql, filter)} where ${where(productConditions(sql, organizationId, filter, subtree))}`.pipe(
          Effect.flatMap(CountRows),
          Effect.map((r) => r[0]?.n ?? 0),
          Effect.orDie
        )
        : undefined
      return { items: rows.slice(0, page.limit), hasMore: rows.length > page.limit, total }
    }).pipe(Effect.orDie)

  /**
   * The search's tiers one after the other, each read in its own order so that a page stops
   * early; a tier is counted only when the offset reaches past it.
   */
  const relevanceSorted = <A>(
    columns: string,
    read: Read<A>,
    tiers: ReadonlyArray<SearchTier>,
    conditions: ReadonlyArray<Fragment>,
    take: number,
    offset: number
  ) =>
    Effect.gen(function*() {
      const rows: Array<A> = []
      let skip = offset
      for (const tier of tiers) {
        if (rows.length >= take) break
        const found = yield* narrowPage(columns, read, tier.from, [...conditions, tier.where], tier.order, asc, false, take - rows.length, skip)
        rows.push(...found)
        if (found.length > 0 || skip === 0) skip = 0
        else {
          const [count] = yield* sql`select cast(count(*) as integer) as n from ${tier.from}
            where ${where([...conditions, tier.where])}`.pipe(Effect.flatMap(CountRows), Effect.orDie)
          skip = Math.max(0, skip - (count?.n ?? 0))
        }
      }
      return rows
    })

  /**
   * Products with the value in value order (an index walk), then those without it: the second
   * query runs only for the page that reaches past the last valued product.
   */
  const attributeSorted = <A>(
    columns: string,
    read: Read<A>,
    products: Fragment,
    conditions: ReadonlyArray<Fragment>,
    attributeId: string,
    dir: Fragment,
    take: number,
    offset: number
  ) =>
    Effect.gen(function*() {
      const valued = yield* narrowPage(
        columns,
        read,
        sql`${products} join product_numbers n on n.product_id = p.id and n.attribute_id = ${attributeId}`,
        conditions,
        sql`n.value`,
        dir,
        true,
        take,
        offset
      )
      if (valued.length >= take) return valued
      let skip = 0
      if (valued.length === 0 && offset > 0) {
        const [count] = yield* sql`select cast(count(*) as integer) as n from ${products}
          join product_numbers n on n.product_id = p.id and n.attribute_id = ${attributeId}
          where ${where(conditions)}`.pipe(Effect.flatMap(CountRows), Effect.orDie)
        skip = Math.max(0, offset - (count?.n ?? 0))
      }
      const missing = yield* narrowPage(
        columns,
        read,
        products,
        [...conditions, sql`not exists (select 1 from product_numbers n where n.product_id = p.id and n.attribute_id = ${attributeId})`],
        sql`p.id`,
        dir,
        false,
        take - valued.length,
        skip
      )
      return [...valued, ...missing]
    })

  const list = pageOf(withCategoryIds, selectRecords)
  const listJson = pageOf(`p.id, ${productJsonOf(sql, [["categoryIds", categoryIdsJson(sql)]])} as json`, (statement) =>
    statement.pipe(Effect.flatMap(ItemJsonRows), Effect.orDie))

  const findJson = yield* makeFindJson

  // A row inserted holds its slug's index entry until the commit, and a row with the same slug
  // waits for it. Batches inserting overlapping slugs in different orders waited for each other
  // in a cycle, which Postgres breaks after a second by aborting one (which runs again, and ran
  // out of runs with a few batches at once: 500). Taken in one order, one batch waits for the
  // other and then finds its slugs taken. SQLite writes one transaction at a time, and numbers
  // rows in insertion order, which orders a search's ties: there they go in as given.
  const inSlugOrder = (writes: ReadonlyArray<ProductWrite>) =>
    sql.onDialectOrElse({
      pg: () => [...writes].sort((a, b) => (a.product.slug < b.product.slug ? -1 : a.product.slug > b.product.slug ? 1 : 0)),
      orElse: () => writes
    })

  return ProductRepository.of({
    insert: (writes) =>
      Effect.gen(function*() {
        for (const chunk of chunks(inSlugOrder(writes))) yield* sql`insert into products ${sql.insert(chunk.map(productColumns))}`
        yield* insertSideRows(writes)
      }).pipe(Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(slugConflict(writes)) : Effect.die(e)))),
    update: (write) =>
      Effect.gen(function*() {
        const { id, organizationId, createdAt: _, createdBy: __, ...set } = productColumns(write)
        yield* sql`update products set ${sql.update(set)} where organization_id = ${organizationId} and id = ${id}`
        yield* syncSideRows(write)
      }).pipe(Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(slugConflict([write])) : Effect.die(e)))),
    delete: (organizationId, id) =>
      sql`delete from products where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    findById: (organizationId, id) =>
      selectRecords(sql`select ${sql.literal(withCategoryIds)} from products p where p.organization_id = ${organizationId} and p.id = ${id}`).pipe(
        Effect.map(Array.head)
      ),
    findJson,
    hold: (organizationId, ids) => (ids.length === 0 ? Effect.void : holdProducts(sql, organizationId, idIn(sql, "id", ids))),
    findByIds: (organizationId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : selectRecords(sql`select ${sql.literal(withCategoryIds)} from products p
          where p.organization_id = ${organizationId} and ${sql.in("p.id", ids)}`),
    slugsTaken: (organizationId, slugs) =>
      slugs.length === 0
        ? Effect.succeed(new Set<string>())
        : sql`select slug from products where organization_id = ${organizationId} and ${sql.in("slug", slugs)}`.pipe(
          Effect.flatMap(SlugRows),
          Effect.map((rows) => new Set(rows.map((r) => r.slug))),
          Effect.orDie
        ),
    list,
    listJson,
    facets: (organizationId, filter, options) =>
      Effect.gen(function*() {
        const subtree = yield* subtreeOf(organizationId, filter)
        return yield* facetsOf(sql, organizationId, filter, subtree, options, facetIndex)
      }).pipe(Effect.orDie),
    productAttribute: (organizationId, code) =>
      sql`select id, type from attributes where organization_id = ${organizationId} and entity_kind = 'product' and code = ${code}`.pipe(
        Effect.flatMap(AttributeRows),
        Effect.map(Array.head),
        Effect.orDie
      )
  })
})

export const layer = Layer.scoped(ProductRepository, make)
