import { Schema } from "effect"
import { Timestamp, Uuid } from "../shared/Fields.js"

const RelationshipType = Schema.Literal("related", "upsell", "cross_sell", "accessory").annotations({
  message: () => "must be one of related, upsell, cross_sell, accessory"
})
type RelationshipType = typeof RelationshipType.Type

/** A directed link from a product to another of the same organization. */
export class ProductRelationship extends Schema.Class<ProductRelationship>("ProductRelationship")({
  id: Uuid,
  organizationId: Uuid,
  productId: Uuid,
  relatedProductId: Uuid,
  type: RelationshipType,
  createdAt: Timestamp
}) {}

export const CreateRelationship = Schema.Struct({
  relatedProductId: Uuid,
  type: RelationshipType
})
export type CreateRelationship = typeof CreateRelationship.Type

/** A slice of a product's links: `offset` links skipped (0 when absent), at most `limit` (all the rest when absent). */
export interface RelationshipPage {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}
