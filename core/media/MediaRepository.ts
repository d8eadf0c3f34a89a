import { Context, type Effect, type Option } from "effect"
import type { MediaRecord } from "./Media.js"

/** Media records. Callers run these inside `UnitOfWork.tenant`. */
export class MediaRepository extends Context.Tag("catalog/MediaRepository")<MediaRepository, {
  readonly insert: (record: MediaRecord) => Effect.Effect<void>
  readonly findById: (organizationId: string, id: string) => Effect.Effect<Option.Option<MediaRecord>>
  /** Which of `ids` name media records of the organization; they cannot be deleted until the transaction ends. */
  readonly existing: (organizationId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  /** A page of the product's media by position, then upload; and whether more follow. */
  readonly ofProduct: (
    organizationId: string,
    productId: string,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<{ readonly media: ReadonlyArray<MediaRecord>; readonly hasMore: boolean }>
  /** One past the highest position among the product's media (0 when it has none). */
  readonly nextPosition: (organizationId: string, productId: string) => Effect.Effect<number>
  /** The first media of each product (by position, then upload) that has one. */
  readonly firstOf: (organizationId: string, productIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>>
  /** Where the bytes of these products' media are: read before a product's deletion takes the rows. */
  readonly blobKeysOf: (
    organizationId: string,
    productIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<{ readonly productId: string; readonly blobKey: string }>>
  /** Rewrites product, alt, position and updatedAt. */
  readonly update: (record: MediaRecord) => Effect.Effect<void>
  readonly remove: (organizationId: string, id: string) => Effect.Effect<void>
}>() {}
