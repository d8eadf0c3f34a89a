import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A product's sortable number for one attribute, as a `product_numbers` row. */
type ProductNumberRow = {
  readonly organizationId: string
  readonly productId: string
  readonly attributeId: string
  readonly value: number
}

/**
 * Brings a product's `product_numbers` rows in line with `numbers`, writing only the rows that
 * differ: numbers left as they are touch none of the table's indexes.
 */
export const syncProductNumbers = (sql: SqlClient.SqlClient, productId: string, numbers: ReadonlyArray<ProductNumberRow>) =>
  Effect.gen(function*() {
    const keep = numbers.map((n) => n.attributeId)
    yield* keep.length === 0
      ? sql`delete from product_numbers where product_id = ${productId}`
      : sql`delete from product_numbers where product_id = ${productId} and not ${sql.in("attribute_id", keep)}`
    if (numbers.length > 0) {
      yield* sql`insert into product_numbers ${sql.insert(numbers)} on conflict (product_id, attribute_id) do update set
        value = excluded.value where product_numbers.value <> excluded.value`
    }
  })
