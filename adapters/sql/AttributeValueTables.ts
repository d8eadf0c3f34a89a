import type { EntityKind } from "../../core/schema/Attribute.js"
import type { Usage } from "../../core/schema/AttributeValueStore.js"

/**
 * A table whose rows carry attribute values: a JSON column `attributes` (SQLite text,
 * Postgres jsonb) mapping codes to entries, plus `organization_id` and `updated_at`.
 */
export interface AttributeValueTable {
  readonly table: string
  /** The kind of attribute whose values the rows hold. */
  readonly entityKind: EntityKind
  /** Where its rows are counted in `/v1/attributes/{id}/usage` and `removed_from`. */
  readonly usageKey: keyof Usage
}

/** Every table holding attribute values; a catalog table is added here when it lands. */
export const ATTRIBUTE_VALUE_TABLES: ReadonlyArray<AttributeValueTable> = [
  { table: "products", entityKind: "product", usageKey: "products" },
  { table: "categories", entityKind: "category", usageKey: "categories" },
  { table: "brands", entityKind: "brand", usageKey: "brands" },
  { table: "content_pages", entityKind: "content", usageKey: "contentPages" },
  { table: "variants", entityKind: "product", usageKey: "variants" }
]
