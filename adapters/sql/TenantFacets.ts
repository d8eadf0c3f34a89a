import { ProductStatus } from "../../core/products/Product.js"
import type { ProductFilter } from "../../core/products/ProductFilter.js"

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
export class TenantFacets {
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

/** Counts `question` over the copy: one pass over its slots. */
export const count = (facets: TenantFacets, { accepts, filter, only, subtree, tree }: FacetQuestion): FacetTallies => {
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
      for (let at: string | null | undefined = facets.categories.values[n]; at != null && !seen.has(at); at = parentOf.get(at)) {
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
