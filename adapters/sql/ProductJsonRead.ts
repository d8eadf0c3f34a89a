import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ProductJson } from "../../core/products/Product.js"
import { ReadConnection } from "./ReadConnection.js"

const decodeRow = Schema.decodeUnknown(Schema.UndefinedOr(Schema.Struct({ json: Schema.String })))

/** `Product`'s fields in the order of its schema, with their columns; JSON columns go in as stored. */
const FIELDS: ReadonlyArray<readonly [field: string, column: string, kind: "value" | "json"]> = [
  ["id", "p.id", "value"],
  ["organizationId", "p.organization_id", "value"],
  ["familyId", "p.family_id", "value"],
  ["name", "p.name", "value"],
  ["slug", "p.slug", "value"],
  ["status", "p.status", "value"],
  ["brandId", "p.brand_id", "value"],
  ["attributes", "p.attributes", "json"],
  ["tags", "p.tags", "json"],
  ["createdBy", "p.created_by", "value"],
  ["updatedBy", "p.updated_by", "value"],
  ["createdAt", "p.created_at", "value"],
  ["updatedAt", "p.updated_at", "value"]
]

/**
 * The product as one JSON string assembled by the database. `quote` makes a column's value
 * JSON text (a string quoted, NULL as `null`); `json` passes a JSON column's text through.
 */
const productJson = (quote: (column: string) => string, json: (column: string) => string) =>
  FIELDS.map(([field, column, kind], i) => `'${i === 0 ? "{" : ","}"${field}":' || ${kind === "json" ? json(column) : quote(column)}`)
    .join(" || ") + " || '}' as json"

/** `ProductRepository.findJson`: on the read connection where there is one, else on the client. */
export const makeFindJson = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const reader = yield* Effect.serviceOption(ReadConnection)
  const selected = sql.onDialectOrElse({
    pg: () => productJson((c) => `coalesce(to_json(${c})::text, 'null')`, (c) => `${c}::text`),
    orElse: () => productJson((c) => `json_quote(${c})`, (c) => c)
  })
  const first = Option.match(reader, {
    onSome: (r) => {
      const statement = `select ${selected} from products p where p.organization_id = ? and p.id = ?`
      return (organizationId: string, id: string) => r.first(statement, [organizationId, id])
    },
    onNone: () => (organizationId: string, id: string) =>
      sql`select ${sql.literal(selected)} from products p where p.organization_id = ${organizationId} and p.id = ${id}`.pipe(
        Effect.map((rows) => rows[0])
      )
  })
  return (organizationId: string, id: string) =>
    first(organizationId, id).pipe(
      Effect.flatMap(decodeRow),
      Effect.map((row) => Option.map(Option.fromNullable(row), (r) => ProductJson(r.json))),
      Effect.orDie
    )
})
