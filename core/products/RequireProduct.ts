import { Effect } from "effect"
import { type NotFound, orNotFound } from "../shared/Errors.js"
import type { ProductRecord } from "./Product.js"
import type { ProductRepository } from "./ProductRepository.js"

/** The product, or NotFound (also for another organization's product); call inside the tenant transaction. */
export const requireProduct = (
  products: typeof ProductRepository.Service,
  organizationId: string,
  id: string
): Effect.Effect<ProductRecord, NotFound> =>
  products.findById(organizationId, id).pipe(orNotFound("product", id))
