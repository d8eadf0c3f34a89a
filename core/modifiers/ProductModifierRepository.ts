import { Context, type Effect } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { ProductModifier } from "./ProductModifier.js"

/** Modifiers attached to products. Callers run these inside `UnitOfWork.tenant`. */
export class ProductModifierRepository extends Context.Tag("catalog/ProductModifierRepository")<ProductModifierRepository, {
  /** Fails with Conflict when the modifier is already attached to the product. */
  readonly attach: (link: { readonly organizationId: string; readonly productId: string; readonly modifierId: string; readonly attachedAt: string }) => Effect.Effect<void, Conflict>
  /** The product's modifiers, in the order they were attached. */
  readonly ofProduct: (organizationId: string, productId: string) => Effect.Effect<ReadonlyArray<ProductModifier>>
  /** Answers whether the modifier was attached. */
  readonly detach: (organizationId: string, productId: string, modifierId: string) => Effect.Effect<boolean>
}>() {}
