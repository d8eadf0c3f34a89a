import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Relationships } from "../../../core/relationships/Relationships.js"
import { CatalogApi } from "../Api.js"

export const RelationshipsLive = HttpApiBuilder.group(CatalogApi, "relationships", (handlers) =>
  Effect.gen(function*() {
    const relationships = yield* Relationships
    return handlers
      .handle("list", ({ path, urlParams }) => relationships.list(path.id, urlParams))
      .handle("create", ({ path, payload }) => relationships.create(path.id, payload))
      .handle("remove", ({ path }) => relationships.remove(path.id, path.relationshipId))
  }))
