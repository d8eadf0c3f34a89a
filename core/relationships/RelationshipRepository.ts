import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { ProductRelationship, RelationshipPage } from "./Relationship.js"

/** Links between products. Callers run these inside `UnitOfWork.tenant`. */
export class RelationshipRepository extends Context.Tag("catalog/RelationshipRepository")<RelationshipRepository, {
  /** Fails with Conflict when the product already links to that product with that type. */
  readonly insert: (relationship: ProductRelationship) => Effect.Effect<void, Conflict>
  /** The product's links, oldest first: all of them, or the page when one is given. */
  readonly ofProduct: (
    organizationId: string,
    productId: string,
    page?: RelationshipPage
  ) => Effect.Effect<ReadonlyArray<ProductRelationship>>
  /** The link when it starts at the product. */
  readonly find: (organizationId: string, productId: string, id: string) => Effect.Effect<Option.Option<ProductRelationship>>
  /** Answers whether a row was removed. */
  readonly remove: (organizationId: string, id: string) => Effect.Effect<boolean>
}>() {}
