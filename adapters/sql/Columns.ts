import { Effect, Schema } from "effect"
import { StoredAttributeValues } from "../../core/catalog/Category.js"

/**
 * A JSON column: Postgres `jsonb` arrives parsed, SQLite `text` arrives as a string.
 * Decodes either into `schema`.
 */
export const JsonColumn = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.Union(Schema.parseJson(schema), schema as Schema.Schema<A, I, R>)

/** Attribute values as this service stores them (see `StoredAttributeValues`). */
export const StoredValuesColumn = JsonColumn(StoredAttributeValues)

/** Postgres `boolean` or SQLite 0/1. Written as 0/1, which Postgres also accepts for boolean. */
export const BooleanColumn = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal(0, 1), Schema.Boolean, { strict: true, decode: (n) => n === 1, encode: (b) => (b ? 1 : 0) })
)

/** Counts and other integers: Postgres may hand back bigint as string. */
export const IntColumn = Schema.Union(Schema.Number, Schema.NumberFromString)

/** The `n` of a one-row count query (`select count(*) as n ...`), as both dialects return it. */
export const decodeCount = (rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ n: IntColumn })))(rows).pipe(Effect.map(([row]) => row.n))

/** A JSON value to write: both dialects take it as text. */
export const toJson = (value: unknown): string => JSON.stringify(value)

export const toBool = (value: boolean): number => (value ? 1 : 0)

/** Rows in slices of `size`, for multi-row inserts under the drivers' bound-parameter limits. */
export const chunksOf = <A>(rows: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}
