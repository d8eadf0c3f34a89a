import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Variants } from "../../../core/variants/Variants.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const VariantsLive = HttpApiBuilder.group(CatalogApi, "variants", (handlers) =>
  Effect.gen(function*() {
    const variants = yield* Variants
    return handlers
      .handle("list", ({ path, urlParams: q }) => variants.list(path.id, { limit: q.limit ?? 50, offset: q.offset ?? 0 }))
      .handle("create", ({ path, payload }) => variants.create(path.id, payload).pipe(locatedAt((made) => `/v1/products/${made.productId}/variants/${made.id}`)))
      .handle("get", ({ path }) => variants.get(path.id, path.variantId))
      .handle("update", ({ path, payload }) => variants.update(path.id, path.variantId, payload))
      .handle("remove", ({ path }) => variants.remove(path.id, path.variantId))
  }))
