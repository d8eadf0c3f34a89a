import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Connectors } from "../../../core/connectors/Connectors.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const ConnectorsLive = HttpApiBuilder.group(CatalogApi, "connectors", (handlers) =>
  Effect.gen(function*() {
    const connectors = yield* Connectors
    return handlers
      .handle("list", () => connectors.list)
      .handle("install", ({ payload }) => connectors.install(payload).pipe(locatedAt((made) => `/v1/connectors/${made.id}`)))
      .handle("get", ({ path }) => connectors.get(path.id))
      .handle("update", ({ path, payload }) => connectors.update(path.id, payload))
      .handle("remove", ({ path }) => connectors.remove(path.id))
      .handle("deliveries", ({ path, urlParams }) => connectors.deliveries(path.id, urlParams.limit ?? 50, urlParams.offset ?? 0))
      .handle("test", ({ path }) => connectors.sendTest(path.id))
  }))
