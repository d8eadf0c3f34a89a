import { Context, Effect, Layer } from "effect"
import { emit, EventLog } from "../events/EventLog.js"
import { ProductRepository } from "../products/ProductRepository.js"
import { requireProduct } from "../products/RequireProduct.js"
import { now, tenantTransaction } from "../shared/Tenant.js"
import { Crypto } from "../shared/Crypto.js"
import { type Conflict, NotFound, orNotFound } from "../shared/Errors.js"
import { UnitOfWork } from "../shared/UnitOfWork.js"
import { CurrentTenant } from "../tenancy/Actor.js"
import { ModifierRepository } from "./ModifierRepository.js"
import { ProductModifier } from "./ProductModifier.js"
import { ProductModifierRepository } from "./ProductModifierRepository.js"
import { withRecordIds } from "../shared/RecordIds.js"

export class ProductModifiers extends Context.Tag("catalog/ProductModifiers")<ProductModifiers, {
  readonly list: (productId: string) => Effect.Effect<ReadonlyArray<ProductModifier>, NotFound, CurrentTenant>
  /** NotFound for the product or the modifier; Conflict when it is attached already. */
  readonly attach: (productId: string, modifierId: string) => Effect.Effect<ProductModifier, NotFound | Conflict, CurrentTenant>
  /** NotFound when the product does not exist or the modifier is not attached to it. */
  readonly detach: (productId: string, modifierId: string) => Effect.Effect<void, NotFound, CurrentTenant>
}>() {}

const makeProductModifiers = Effect.gen(function*() {
  const repo = yield* ProductModifierRepository
  const modifiers = yield* ModifierRepository
  const products = yield* ProductRepository
  const uow = yield* UnitOfWork
  const crypto = yield* Crypto
  const events = yield* EventLog

  // The product is the entity whose modifier set changed.
  const record = (name: string, productId: string, modifierId: string, code: string) =>
    emit({ name, entityType: "product_modifier", entityId: productId, payload: { productId, modifierId, code } }).pipe(
      Effect.provideService(Crypto, crypto),
      Effect.provideService(EventLog, events)
    )
  const inTenant = tenantTransaction(uow)
  const requireModifier = (organizationId: string, id: string) =>
    modifiers.findById(organizationId, id).pipe(orNotFound("modifier", id))

  return withRecordIds(ProductModifiers.of({
    list: (productId) =>
      inTenant((organizationId) => Effect.zipRight(requireProduct(products, organizationId, productId), repo.ofProduct(organizationId, productId))),
    attach: (productId, modifierId) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          // Attaches to one product wait for each other, so each goes one past the last, in the order attached.
          yield* uow.lock("product", [productId])
          yield* requireProduct(products, organizationId, productId)
          const modifier = yield* requireModifier(organizationId, modifierId)
          const attachedAt = yield* now
          yield* repo.attach({ organizationId, productId, modifierId, attachedAt })
          yield* record("product_modifier.attached", productId, modifierId, modifier.code)
          return new ProductModifier({ ...modifier, productId, modifierId, attachedAt }, true)
        })
      ),
    detach: (productId, modifierId) =>
      inTenant((organizationId) =>
        Effect.gen(function*() {
          yield* requireProduct(products, organizationId, productId)
          const modifier = yield* requireModifier(organizationId, modifierId)
          const detached = yield* repo.detach(organizationId, productId, modifierId)
          if (!detached) return yield* new NotFound({ entity: "product modifier", id: modifierId })
          yield* record("product_modifier.detached", productId, modifierId, modifier.code)
        })
      )
  }), { list: ["product"], attach: ["product", "modifier"], detach: ["product", "modifier"] })
})

export const ProductModifiersLive = Layer.effect(ProductModifiers, makeProductModifiers)
