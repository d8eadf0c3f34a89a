import { Context, Effect, Layer, Option } from "effect"
import { emit, EventLog } from "../events/EventLog.js"
import { ProductRepository } from "../products/ProductRepository.js"
import { requireProduct } from "../products/RequireProduct.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { Crypto } from "../shared/Crypto.js"
import { type Conflict, NotFound, ValidationFailed } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { type CreateRelationship, ProductRelationship, type RelationshipPage } from "./Relationship.js"
import { RelationshipRepository } from "./RelationshipRepository.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class Relationships extends Context.Tag("catalog/Relationships")<Relationships, {
  /** Every link of the product, oldest first, or the page of them when one is given. */
  readonly list: (productId: string, page?: RelationshipPage) => Effect.Effect<ReadonlyArray<ProductRelationship>, NotFound, CurrentTenant>
  /** NotFound for either product (another organization's included); Conflict when the same link exists. */
  readonly create: (productId: string, input: CreateRelationship) => Effect.Effect<ProductRelationship, NotFound | ValidationFailed | Conflict, CurrentTenant>
  readonly remove: (productId: string, id: string) => Effect.Effect<void, NotFound, CurrentTenant>
}>() {}

const makeRelationships = Effect.gen(function*() {
  const repo = yield* RelationshipRepository
  const products = yield* ProductRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog

  const record = (name: string, r: ProductRelationship) =>
    emit({
      name,
      entityType: "product_relationship",
      entityId: r.id,
      payload: { productId: r.productId, relatedProductId: r.relatedProductId, type: r.type }
    }).pipe(Effect.provideService(Crypto, crypto), Effect.provideService(EventLog, events))
  const inTenant = tenantTransaction(uow)

  return withRecordIds(Relationships.of({
    list: (productId, page) =>
      inTenant((organizationId) => Effect.zipRight(requireProduct(products, organizationId, productId), repo.ofProduct(organizationId, productId, page))),
    create: (productId, input) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* requireProduct(products, organizationId, productId)
          if (input.relatedProductId === productId) {
            return yield* ValidationFailed.one(["relatedProductId"], "a product cannot be related to itself", "self_relationship")
          }
          yield* requireProduct(products, organizationId, input.relatedProductId)
          const relationship = new ProductRelationship({
            id: yield* crypto.uuid,
            organizationId,
            productId,
            relatedProductId: input.relatedProductId,
            type: input.type,
            createdAt: yield* now
          }, true)
          yield* repo.insert(relationship)
          yield* record("product_relationship.created", relationship)
          return relationship
        })
      ),
    remove: (productId, id) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* uow.lock("product_relationship", [id])
          yield* requireProduct(products, organizationId, productId)
          const found = yield* repo.find(organizationId, productId, id)
          if (Option.isNone(found)) return yield* new NotFound({ entity: "relationship", id })
          // Either product's deletion takes the link without its lock.
          if (!(yield* repo.remove(organizationId, id))) return yield* new NotFound({ entity: "relationship", id })
          yield* record("product_relationship.deleted", found.value)
        })
      )
  }), { list: ["product"], create: ["product"], remove: ["product", "relationship"] })
})

export const RelationshipsLive = Layer.effect(Relationships, makeRelationships)
