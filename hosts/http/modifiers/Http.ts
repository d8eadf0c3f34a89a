import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Modifiers } from "../../../core/modifiers/Modifiers.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const ModifiersLive = HttpApiBuilder.group(CatalogApi, "modifiers", (handlers) =>
  Effect.gen(function*() {
    const modifiers = yield* Modifiers
    return handlers
      .handle("list", () => modifiers.list)
      .handle("create", ({ payload }) => modifiers.create(payload).pipe(locatedAt((made) => `/v1/modifiers/${made.id}`)))
      .handle("get", ({ path }) => modifiers.get(path.id))
      .handle("update", ({ path, payload }) => modifiers.update(path.id, payload))
      .handle("remove", ({ path }) => modifiers.remove(path.id))
  }))
