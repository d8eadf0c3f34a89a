/** A deterministic, realistic catalog: words, prices and assignments from a seeded generator. */
export const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ADJECTIVES = ["waterproof", "classic", "organic", "lightweight", "vintage", "compact", "premium", "rugged", "slim", "cozy", "breathable", "wireless", "handmade", "ergonomic", "recycled", "insulated"]
const NOUNS = ["jacket", "boot", "backpack", "lamp", "kettle", "sneaker", "tent", "chair", "blanket", "watch", "speaker", "bottle", "scarf", "glove", "helmet", "mug"]
const MATERIALS = ["cotton", "leather", "wool", "steel", "bamboo", "linen", "nylon", "oak", "ceramic", "glass"]
export const TAGS = Array.from({ length: 40 }, (_, i) => `tag-${i}`)
export const COLORS = ["red", "blue", "green", "black", "white", "grey", "yellow", "navy"]
export const SIZES = ["xs", "s", "m", "l", "xl"]

export const pick = <A>(next: () => number, items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)] as A

/** The ~20 attributes of every product family: `price` is money, `description` localized. */
export const ATTRIBUTES: ReadonlyArray<{ readonly code: string; readonly type: string; readonly isLocalizable?: boolean; readonly validation?: Record<string, unknown> }> = [
  { code: "price", type: "money" },
  { code: "description", type: "textarea", isLocalizable: true },
  { code: "color", type: "select", validation: { options: COLORS } },
  { code: "size", type: "select", validation: { options: SIZES } },
  { code: "material", type: "text" },
  { code: "weight", type: "measurement" },
  { code: "rating", type: "decimal" },
  { code: "stock", type: "number" },
  { code: "ean", type: "text" },
  { code: "is_new", type: "boolean" },
  { code: "release_date", type: "date" },
  { code: "website", type: "url" },
  { code: "care", type: "richtext" },
  { code: "features", type: "multiselect" },
  { code: "keywords", type: "tags" },
  { code: "origin", type: "text" },
  { code: "warranty_years", type: "number" },
  { code: "support_email", type: "email" },
  { code: "specs", type: "json" },
  { code: "launch_at", type: "datetime" }
]

const one = (value: unknown) => [{ locale: null, channel: null, value }]

/** The attribute values of product number `i`. */
export const attributeValues = (next: () => number, i: number): Record<string, unknown> => {
  const material = pick(next, MATERIALS)
  return {
    price: one({ amount_cents: 100 + Math.floor(next() * 99_900), currency: "EUR" }),
    description: [
      { locale: "en", channel: null, value: `A ${pick(next, ADJECTIVES)} ${pick(next, NOUNS)} made of ${material}.` },
      { locale: "de", channel: null, value: `Ein Produkt aus ${material}.` }
    ],
    color: one(pick(next, COLORS)),
    size: one(pick(next, SIZES)),
    material: one(material),
    weight: one({ amount: Math.round(next() * 5000) / 100, unit: "kg" }),
    rating: one((1 + next() * 4).toFixed(1)),
    stock: one(Math.floor(next() * 500)),
    ean: one(String(4_000_000_000_000 + i)),
    is_new: one(next() < 0.2),
    release_date: one(`2026-${String(1 + Math.floor(next() * 12)).padStart(2, "0")}-15`),
    website: one(`https://example.com/p/${i}`),
    care: one("<p>Hand wash cold.</p>"),
    features: one(["durable", "washable"]),
    keywords: one([material, pick(next, NOUNS)]),
    origin: one("Portugal"),
    warranty_years: one(2),
    support_email: one("help@example.com"),
    specs: one({ layers: 2 }),
    launch_at: one("2026-03-01T09:00:00Z")
  }
}

export const productName = (next: () => number, i: number) => `${pick(next, ADJECTIVES)} ${pick(next, NOUNS)} ${i}`
