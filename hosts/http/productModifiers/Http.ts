import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { ProductModifiers } from "../../../core/modifiers/ProductModifiers.js"
import { CatalogApi } from "../Api.js"

export const ProductModifiersLive = HttpApiBuilder.group(CatalogApi, "productModifiers", (handlers) =>
  Effect.gen(function*() {
    const attached = yield* ProductModifiers
    return handlers
      .handle("list", ({ path }) => attached.list(path.id))
      .handle("attach", ({ path, payload }) => attached.attach(path.id, payload.modifierId))
      .handle("detach", ({ path }) => attached.detach(path.id, path.modifierId))
  }))
