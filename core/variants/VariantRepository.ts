import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { Variant } from "./Variant.js"

/** A variant as stored: the record and the key of its axis combination (null without axes). */
interface VariantWrite {
  readonly variant: Variant
  readonly axisKey: string | null
}

/** A rewrite of a variant; `axisKey` only when its values were written. */
export interface VariantUpdate {
  readonly variant: Variant
  readonly axisKey?: string | null
}

/** Variants of products. Callers run these inside `UnitOfWork.tenant`. */
export class VariantRepository extends Context.Tag("catalog/VariantRepository")<VariantRepository, {
  /** Fails with Conflict when the SKU is taken in the organization or the axis combination in the product. */
  readonly insert: (write: VariantWrite) => Effect.Effect<void, Conflict>
  /**
   * Rewrites the variant; the same conflicts as insert. Without `axisKey` the stored key stays:
   * a write that leaves the values alone does not answer for a combination it did not change.
   * Answers whether the row was still there to rewrite.
   */
  readonly update: (write: VariantUpdate) => Effect.Effect<boolean, Conflict>
  /** Answers whether a row was removed. */
  readonly remove: (organizationId: string, productId: string, id: string) => Effect.Effect<boolean>
  /** The variant when it belongs to the product. */
  readonly find: (organizationId: string, productId: string, id: string) => Effect.Effect<Option.Option<Variant>>
  /** Every variant of the product, by position then creation. */
  readonly ofProduct: (organizationId: string, productId: string) => Effect.Effect<ReadonlyArray<Variant>>
  /** A page of the product's variants, and whether more follow. */
  readonly page: (
    organizationId: string,
    productId: string,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<{ readonly variants: ReadonlyArray<Variant>; readonly hasMore: boolean }>
  /** Whether another variant of the organization holds the SKU. */
  readonly skuTaken: (organizationId: string, sku: string, exceptId?: string) => Effect.Effect<boolean>
}>() {}
