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
  ["sourceConnectorId", "p.source_connector_id", "value"],
  ["attributes", "p.attributes", "json"],
  ["tags", "p.tags", "json"],
  ["createdBy", "p.created_by", "value"],
  ["updatedBy", "p.updated_by", "value"],
  ["createdAt", "p.created_at", "value"],
  ["updatedAt", "p.updated_at", "value"]
]

/**
 * The product as one JSON string assembled by the database, with `extra` fields (name and
 * JSON expression) after its own. `quote` makes a column's value JSON text (a string quoted,
 * NULL as `null`); `json` passes a JSON column's text through. Every part is text, never
 * NULL, so `concat`, which builds the string once where each `||` copies it, joins the same.
 */
const productJson = (
  quote: (column: string) => string,
  json: (column: string) => string,
  extra: ReadonlyArray<readonly [field: string, expression: string]>
) =>
  "concat(" +
  [...FIELDS.map(([field, column, kind]) => [field, kind === "json" ? json(column) : quote(column)] as const), ...extra]
    .map(([field, expression], i) => `'${i === 0 ? "{" : ","}"${field}":', ${expression}`)
    .join(", ") + ", '}')"

/** The category ids of product `p` in position order, as a JSON array. */
export const categoryIdsJson = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () => `coalesce((select json_agg(c.category_id order by c.position) from product_categories c
      where c.product_id = p.id), '[]'::json)`,
    orElse: () => `(select json_group_array(c.category_id order by c.position) from product_categories c
      where c.product_id = p.id)`
  })

/** The JSON text of product `p` as `Product`, and with `extra` fields. */
export const productJsonOf = (sql: SqlClient.SqlClient, extra: ReadonlyArray<readonly [field: string, expression: string]> = []) =>
  sql.onDialectOrElse({
    pg: () => productJson((c) => `coalesce(to_json(${c})::text, 'null')`, (c) => `${c}::text`, extra.map(([f, e]) => [f, `(${e})::text`] as const)),
    orElse: () => productJson((c) => `json_quote(${c})`, (c) => c, extra)
  })

/** `ProductRepository.findJson`: on the read connection where there is one, else on the client. */
export const makeFindJson = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const reader = yield* Effect.serviceOption(ReadConnection)
  const selected = `${productJsonOf(sql)} as json`
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
