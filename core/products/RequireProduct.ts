import { Effect, Option } from "effect"
import { NotFound } from "../shared/Errors.js"
import type { ProductRecord } from "./Product.js"
import type { ProductRepository } from "./ProductRepository.js"

/** The product, or NotFound (also for another organization's product); call inside the tenant transaction. */
export const requireProduct = (
  products: typeof ProductRepository.Service,
  organizationId: string,
  id: string
): Effect.Effect<ProductRecord, NotFound> =>
  Effect.flatMap(products.findById(organizationId, id), Option.match({
    onNone: () => Effect.fail(new NotFound({ entity: "product", id })),
    onSome: Effect.succeed
  }))
