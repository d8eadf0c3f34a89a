import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { ModifierOption, ModifierType } from "../../core/modifiers/Modifier.js"
import { ProductModifier } from "../../core/modifiers/ProductModifier.js"
import { ProductModifierRepository } from "../../core/modifiers/ProductModifierRepository.js"
import { Conflict } from "../../core/shared/Errors.js"
import { JsonColumn } from "./Columns.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  code: Schema.String,
  name: Schema.String,
  type: ModifierType,
  options: JsonColumn(Schema.Array(ModifierOption)),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  productId: Schema.String,
  modifierId: Schema.String,
  attachedAt: Schema.String
})
const productModifiers = storedRecords(Row, ProductModifier)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  return ProductModifierRepository.of({
    attach: (link) =>
      sql`insert into product_modifiers (organization_id, product_id, modifier_id, attached_at, position)
          select ${link.organizationId}, ${link.productId}, ${link.modifierId}, ${link.attachedAt}, coalesce(max(position) + 1, 0)
          from product_modifiers where product_id = ${link.productId}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e)
            ? Effect.fail(new Conflict({ message: `modifier ${link.modifierId} is already attached to product ${link.productId}` }))
            : Effect.die(e))
      ),
    ofProduct: (organizationId, productId) =>
      sql`select m.*, pm.product_id, pm.modifier_id, pm.attached_at
          from product_modifiers pm join modifiers m on m.id = pm.modifier_id
          where pm.organization_id = ${organizationId} and pm.product_id = ${productId}
          order by pm.position`.pipe(
        Effect.orDie,
        Effect.flatMap(productModifiers)
      ),
    detach: (organizationId, productId, modifierId) =>
      sql`delete from product_modifiers
          where organization_id = ${organizationId} and product_id = ${productId} and modifier_id = ${modifierId}
          returning modifier_id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
  })
})

export const layer = Layer.effect(ProductModifierRepository, make)
