/**
 * How a tenant table's rows are written to the tenant export, so that the file is the same
 * whichever database it came from: JSON columns as JSON (SQLite stores them as text), booleans
 * as booleans (SQLite stores 0 and 1), 64-bit integers as numbers (Postgres' driver reads
 * `bigint` as text), and no column that only one dialect has or that must not
 * outlive the tenant. Columns are named as rows arrive, in camelCase.
 */
interface ExportColumns {
  readonly json?: ReadonlyArray<string>
  readonly booleans?: ReadonlyArray<string>
  readonly integers?: ReadonlyArray<string>
  readonly withheld?: ReadonlyArray<string>
  /** The key the rows are written in order of, so that an export never depends on how the database laid them out. */
  readonly orderBy: ReadonlyArray<string>
  /** Text columns of the key, ordered by their UTF-8 bytes as SQLite does, not by the Postgres cluster's locale. */
  readonly byteOrder?: ReadonlyArray<string>
}

export const EXPORT_COLUMNS: Readonly<Record<string, ExportColumns>> = {
  content_pages: { json: ["attributes"], orderBy: ["id"] },
  media: { integers: ["size"], orderBy: ["id"] },
  variants: { json: ["attributes"], orderBy: ["id"] },
  product_relationships: { orderBy: ["id"] },
  product_modifiers: { orderBy: ["product_id", "modifier_id"] },
  product_numbers: { orderBy: ["product_id", "attribute_id"] },
  product_tags: { orderBy: ["product_id", "tag"], byteOrder: ["tag"] },
  product_categories: { orderBy: ["product_id", "category_id"] },
  // SQLite's rowid for the search index; Postgres has none.
  products: { json: ["attributes", "tags"], withheld: ["seq"], orderBy: ["id"] },
  categories: { json: ["attributes"], orderBy: ["id"] },
  brands: { json: ["attributes"], orderBy: ["id"] },
  modifiers: { json: ["options"], orderBy: ["id"] },
  family_attributes: { orderBy: ["family_id", "attribute_id"] },
  attribute_families: { json: ["label"], orderBy: ["id"] },
  attributes: { json: ["label", "validation", "defaultValue"], booleans: ["isLocalizable", "isScopable", "isVariantAxis"], orderBy: ["id"] },
  attribute_groups: { json: ["label"], orderBy: ["id"] },
  // The deliveries still to make, in order; their claims belong to this database's dispatchers.
  webhook_queue: { withheld: ["seq", "claimedBy", "claimedUntil"], orderBy: ["seq"] },
  connector_deliveries: { booleans: ["ok"], orderBy: ["id"] },
  // The secret and the headers sent with deliveries (a receiver's credentials go there).
  connectors: { json: ["events"], withheld: ["secret", "extraHeaders"], orderBy: ["id"] },
  api_keys: { withheld: ["keyHash"], orderBy: ["id"] },
  invites: { orderBy: ["email"], byteOrder: ["email"] },
  memberships: { orderBy: ["user_id"] },
  // In the order they were recorded; the action is the name's last part, kept apart for the
  // audit log's index.
  events: { json: ["payload"], withheld: ["seq", "xact", "action"], orderBy: ["seq"] }
}

const fromJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value)
const fromBoolean = (value: unknown) => (typeof value === "number" ? value === 1 : value)
// Sizes and counts, far below 2^53: exact as numbers.
const fromInteger = (value: unknown) => (typeof value === "string" || typeof value === "bigint" ? Number(value) : value)

/** One row of `table` as the export writes it. */
export const exportRow = (table: string, row: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const columns: Partial<ExportColumns> = EXPORT_COLUMNS[table] ?? {}
  const out: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(row)) {
    if (columns.withheld?.includes(column)) continue
    out[column] = value === null
      ? null
      : columns.json?.includes(column)
      ? fromJson(value)
      : columns.booleans?.includes(column)
      ? fromBoolean(value)
      : columns.integers?.includes(column)
      ? fromInteger(value)
      : value
  }
  return out
}

/** The `order by` list of `table`'s export; on Postgres its text keys take the C collation, which orders UTF-8 by bytes. */
export const exportOrder = (table: string, dialect: "pg" | "sqlite"): string => {
  const columns = EXPORT_COLUMNS[table]
  if (columns === undefined) throw new Error(`tenant table ${table} has no export order`)
  return columns.orderBy
    .map((column) => (dialect === "pg" && columns.byteOrder?.includes(column) ? `${column} collate "C"` : column))
    .join(", ")
}
