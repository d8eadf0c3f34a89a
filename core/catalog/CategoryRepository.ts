import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { Category } from "./Category.js"

/** The category tree of each organization. */
export class CategoryRepository extends Context.Tag("catalog/CategoryRepository")<CategoryRepository, {
  /** Fails with Conflict when the slug is taken. */
  readonly insert: (category: Category) => Effect.Effect<void, Conflict>
  /** Writes every field of `category`; fails with Conflict when the slug is taken. */
  readonly update: (category: Category) => Effect.Effect<void, Conflict>
  /**
   * Holds the category and the products filed under it until the transaction ends, waiting for
   * the writes to them in flight: an instant read after this is later than any of theirs.
   */
  readonly holdForDeletion: (organizationId: string, id: string) => Effect.Effect<void>
  /**
   * Deletes the category, once `holdForDeletion` holds it; the products filed under it lose
   * that assignment and have their `updatedAt` set to `at`. Answers how many products that was.
   */
  readonly delete: (organizationId: string, id: string, at: string) => Effect.Effect<number>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<Category>>
  /** Ordered by position, then name. */
  readonly list: (
    organizationId: string,
    query: { readonly parentId?: string | undefined; readonly q?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<Category>>
  readonly hasChildren: (organizationId: string, id: string) => Effect.Effect<boolean>
  /**
   * Holds the organization's category tree until the transaction ends, so that moves and
   * deletions checked against the tree see each other (two moves could otherwise each pass
   * the cycle check and make a cycle together).
   */
  readonly lockTree: (organizationId: string) => Effect.Effect<void>
  /** The ids of `id`'s ancestors, nearest first. */
  readonly ancestors: (organizationId: string, id: string) => Effect.Effect<ReadonlyArray<string>>
  /** Which of `ids` exist in the organization; they cannot be deleted until the transaction ends. */
  readonly existing: (organizationId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** Which of `slugs` are taken in the organization. */
  readonly slugsTaken: (organizationId: string, slugs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
}>() {}
