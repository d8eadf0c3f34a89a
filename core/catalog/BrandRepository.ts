import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { Brand, ListBrandsQuery } from "./Brand.js"

/** The brands of each organization. */
export class BrandRepository extends Context.Tag("catalog/BrandRepository")<BrandRepository, {
  /** Fails with Conflict when the name (ignoring case) or the slug is taken. */
  readonly insert: (brand: Brand) => Effect.Effect<void, Conflict>
  /** Writes every field of `brand`; fails with Conflict when the name or the slug is taken. */
  readonly update: (brand: Brand) => Effect.Effect<void, Conflict>
  /**
   * Holds the brand and the products it is on until the transaction ends, waiting for the
   * writes to them in flight: an instant read after this is later than any of theirs.
   */
  readonly holdForDeletion: (organizationId: string, id: string) => Effect.Effect<void>
  /**
   * Deletes the brand, once `holdForDeletion` holds it; its products lose it and have their
   * `updatedAt` set to `at`. Answers how many products that was.
   */
  readonly delete: (organizationId: string, id: string, at: string) => Effect.Effect<number>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<Brand>>
  /** Ordered by name. */
  readonly list: (organizationId: string, query: ListBrandsQuery) => Effect.Effect<ReadonlyArray<Brand>>
  /** Which of `ids` exist in the organization; they cannot be deleted until the transaction ends. */
  readonly existing: (organizationId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** Which of `slugs` are taken in the organization. */
  readonly slugsTaken: (organizationId: string, slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
}>() {}
