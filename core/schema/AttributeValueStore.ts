import { Context, type Effect } from "effect"
import type { EntityKind } from "./Attribute.js"

/** Rows holding a value under one attribute code, per kind of record. */
export interface Usage {
  readonly products: number
  readonly variants: number
  readonly contentPages: number
  readonly categories: number
  readonly brands: number
}

export const noUsage: Usage = { products: 0, variants: 0, contentPages: 0, categories: 0, brands: 0 }

export const usageTotal = (u: Usage): number => u.products + u.variants + u.contentPages + u.categories + u.brands

/** The key of a value entry that an attribute's `isLocalizable` or `isScopable` governs. */
export type ValueScope = "locale" | "channel"

/**
 * The attribute values stored on catalog records (products, variants, content pages,
 * categories, brands), seen by code. Callers run these inside `UnitOfWork.tenant`.
 */
export class AttributeValueStore extends Context.Tag("catalog/AttributeValueStore")<AttributeValueStore, {
  /** How many records of `entityKind` hold a value under `code`. */
  readonly usage: (organizationId: string, entityKind: EntityKind, code: string) => Effect.Effect<Usage>
  /** How many records of `entityKind` hold an entry under `code` at a `scope` (locale or channel) other than null. */
  readonly scopedUsage: (organizationId: string, entityKind: EntityKind, code: string, scope: ValueScope) => Effect.Effect<Usage>
  /**
   * Holds the records of `entityKind` that hold a value under `code` until the transaction ends.
   * Taken before the instant of a removal or rename is read: a write to those records in flight
   * (a brand's deletion clearing their brand, say) commits first, and the rewrite stamps them later.
   */
  readonly hold: (organizationId: string, entityKind: EntityKind, code: string) => Effect.Effect<void>
  /** Removes `code` from every record of `entityKind`, bumping their `updatedAt` to `at`; answers the rows changed. */
  readonly remove: (organizationId: string, entityKind: EntityKind, code: string, at: string) => Effect.Effect<Usage>
  /** Moves the values under `from` to `to` on every record of `entityKind` (an attribute's code changed). */
  readonly rename: (organizationId: string, entityKind: EntityKind, from: string, to: string, at: string) => Effect.Effect<Usage>
}>() {}
