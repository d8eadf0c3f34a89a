import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { ProductJson } from "../../core/products/Product.js"
import { ReadConnection } from "./ReadConnection.js"

const decodeRow = Schema.decodeUnknown(Schema.UndefinedOr(Schema.Struct({ json: Schema.String })))

/** A column's value as JSON text: a string quoted, NULL as `null`. */
type Quote = (column: string) => string

/**
 * `Product`'s fields in the order of its schema, assembled by the database: one string comes
 * back, and the stored values and tags go in as the JSON they are stored as.
 */
const productJson = (quote: Quote, json: (column: string) => string) =>
  [
    `'{"id":' || ${quote("p.id")}`,
    `',"organizationId":' || ${quote("p.organization_id")}`,
    `',"familyId":' || ${quote("p.family_id")}`,
    `',"name":' || ${quote("p.name")}`,
    `',"slug":' || ${quote("p.slug")}`,
    `',"status":' || ${quote("p.status")}`,
    `',"brandId":' || ${quote("p.brand_id")}`,
    `',"attributes":' || ${json("p.attributes")}`,
    `',"tags":' || ${json("p.tags")}`,
    `',"createdBy":' || ${quote("p.created_by")}`,
    `',"updatedBy":' || ${quote("p.updated_by")}`,
    `',"createdAt":' || ${quote("p.created_at")}`,
    `',"updatedAt":' || ${quote("p.updated_at")} || '}'`
  ].join(" || ") + " as json"

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
