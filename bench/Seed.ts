import { ATTRIBUTES, attributeValues, pick, productName, random, TAGS } from "./Dataset.js"
import { type Client, idOf } from "./Server.js"

export interface Seeded {
  readonly families: ReadonlyArray<string>
  readonly categories: ReadonlyArray<string>
  readonly roots: ReadonlyArray<string>
  readonly brands: ReadonlyArray<string>
}

/** ~20 attributes on 5 families, a 200-node category tree (4 x 7 x 6), 100 brands. */
export const seedSchema = async (api: Client): Promise<Seeded> => {
  const attributeIds: Array<string> = []
  for (const a of ATTRIBUTES) {
    const created = await api.call("POST", "/v1/attributes", { label: { en: a.code }, ...a })
    attributeIds.push(idOf(created.json))
  }
  const families: Array<string> = []
  for (let f = 0; f < 5; f++) {
    const family = idOf((await api.call("POST", "/v1/attribute-families", { code: `family_${f}`, label: { en: `Family ${f}` } })).json)
    for (const attributeId of attributeIds) await api.call("POST", `/v1/attribute-families/${family}/attributes`, { attributeId })
    families.push(family)
  }
  const categories: Array<string> = []
  const roots: Array<string> = []
  const category = async (name: string, parentId?: string) => {
    const id = idOf((await api.call("POST", "/v1/categories", { name, slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"), ...(parentId ? { parentId } : {}) })).json)
    categories.push(id)
    return id
  }
  for (let r = 0; r < 4; r++) {
    const root = await category(`Department ${r}`)
    roots.push(root)
    for (let c = 0; c < 7; c++) {
      const child = await category(`Aisle ${r}-${c}`, root)
      for (let g = 0; g < 6; g++) await category(`Shelf ${r}-${c}-${g}`, child)
    }
  }
  const brands: Array<string> = []
  for (let b = 0; b < 100; b++) brands.push(idOf((await api.call("POST", "/v1/brands", { name: `Brand ${b}`, slug: `brand-${b}` })).json))
  return { families, categories, roots, brands }
}

export const productItems = (seeded: Seeded, count: number) => {
  const next = random(42)
  const leaves = seeded.categories.filter((_, i) => i % 8 !== 0)
  return Array.from({ length: count }, (_, i) => ({
    op: "create" as const,
    familyId: pick(next, seeded.families),
    name: productName(next, i),
    slug: `product-${i}`,
    status: next() < 0.7 ? "active" : "draft",
    brandId: pick(next, seeded.brands),
    categoryIds: [pick(next, leaves)],
    tags: [pick(next, TAGS), pick(next, TAGS), pick(next, TAGS)],
    attributes: attributeValues(next, i)
  }))
}

