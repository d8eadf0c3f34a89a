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
  /** The column that gives the rows' order, when they have one. */
  readonly orderBy?: string
}

export const EXPORT_COLUMNS: Readonly<Record<string, ExportColumns>> = {
  content_pages: { json: ["attributes"] },
  variants: { json: ["attributes"] },
  // SQLite's rowid for the search index; Postgres has none.
  products: { json: ["attributes", "tags"], withheld: ["seq"] },
  categories: { json: ["attributes"] },
  brands: { json: ["attributes"] },
  modifiers: { json: ["options"] },
  attribute_groups: { json: ["label"] },
  attributes: { json: ["label", "validation", "defaultValue"], booleans: ["isLocalizable", "isScopable", "isVariantAxis"] },
  attribute_families: { json: ["label"] },
  connector_deliveries: { booleans: ["ok"] },
  media: { integers: ["size"] },
  // The secret and the headers sent with deliveries (a receiver's credentials go there).
  connectors: { json: ["events"], withheld: ["secret", "extraHeaders"] },
  api_keys: { withheld: ["keyHash"] },
  // In the order they were recorded; the action is the name's last part, kept apart for the
  // audit log's index.
  events: { json: ["payload"], withheld: ["seq", "xact", "action"], orderBy: "seq" },
  // The deliveries still to make, in order; their claims belong to this database's dispatchers.
  webhook_queue: { withheld: ["seq", "claimedBy", "claimedUntil"], orderBy: "seq" }
}

const fromJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value)
const fromBoolean = (value: unknown) => (typeof value === "number" ? value === 1 : value)
// Sizes and counts, far below 2^53: exact as numbers.
const fromInteger = (value: unknown) => (typeof value === "string" || typeof value === "bigint" ? Number(value) : value)

/** One row of `table` as the export writes it. */
export const exportRow = (table: string, row: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const columns = EXPORT_COLUMNS[table] ?? {}
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
