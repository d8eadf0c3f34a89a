import { Schema } from "effect"
import { Timestamp, Uuid } from "../shared/Fields.js"
import { Modifier } from "./Modifier.js"

/**
 * A modifier as attached to a product: the modifier's own fields (so `id` is the modifier's
 * id, the one `DELETE /v1/products/{id}/modifiers/{modifierId}` takes) plus the link.
 */
export class ProductModifier extends Schema.Class<ProductModifier>("ProductModifier")({
  ...Modifier.fields,
  productId: Uuid,
  modifierId: Uuid,
  attachedAt: Timestamp
}) {}

export const AttachModifier = Schema.Struct({ modifierId: Uuid })
export type AttachModifier = typeof AttachModifier.Type
