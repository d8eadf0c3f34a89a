import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Schema } from "effect"
import { ProductRelationship, type RelationshipPage } from "../../core/relationships/Relationship.js"
import { RelationshipRepository } from "../../core/relationships/RelationshipRepository.js"
import { Conflict } from "../../core/shared/Errors.js"
import { isUniqueViolation } from "./SqlErrors.js"

const decodeRows = Schema.decodeUnknown(Schema.Array(ProductRelationship))

/** A product's links, oldest first (ties by id), read in that order from an index (migration 38). */
export const relationshipsStatement = (sql: SqlClient.SqlClient, organizationId: string, productId: string, page: RelationshipPage = {}) =>
  sql`select * from product_relationships where organization_id = ${organizationId} and product_id = ${productId}
      order by created_at, id limit ${page.limit ?? Number.MAX_SAFE_INTEGER} offset ${page.offset ?? 0}`

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = (rows: ReadonlyArray<unknown>) => Effect.orDie(decodeRows(rows))

  return RelationshipRepository.of({
    insert: (r) =>
      sql`insert into product_relationships ${sql.insert({ ...r })}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e)
            ? Effect.fail(new Conflict({ message: `product ${r.productId} already links to ${r.relatedProductId} as ${r.type}` }))
            : Effect.die(e))
      ),
    ofProduct: (organizationId, productId, page) =>
      relationshipsStatement(sql, organizationId, productId, page).pipe(
        Effect.orDie,
        Effect.flatMap(all)
      ),
    find: (organizationId, productId, id) =>
      sql`select * from product_relationships where organization_id = ${organizationId} and product_id = ${productId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    remove: (organizationId, id) =>
      sql`delete from product_relationships where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )
  })
})

export const layer = Layer.effect(RelationshipRepository, make)
