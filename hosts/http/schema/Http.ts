import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AttributeGroups } from "../../../core/schema/AttributeGroups.js"
import { Attributes } from "../../../core/schema/Attributes.js"
import { Families } from "../../../core/schema/Families.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const AttributeGroupsLive = HttpApiBuilder.group(CatalogApi, "attributeGroups", (handlers) =>
  Effect.gen(function*() {
    const groups = yield* AttributeGroups
    return handlers
      .handle("list", () => groups.list)
      .handle("create", ({ payload }) => groups.create(payload))
  }))

export const AttributesLive = HttpApiBuilder.group(CatalogApi, "attributes", (handlers) =>
  Effect.gen(function*() {
    const attributes = yield* Attributes
    return handlers
      .handle("list", ({ urlParams }) => attributes.list(urlParams.entityKind ?? "product"))
      .handle("create", ({ payload }) => attributes.create(payload).pipe(locatedAt((made) => `/v1/attributes/${made.id}`)))
      .handle("get", ({ path }) => attributes.get(path.id))
      .handle("update", ({ path, payload }) => attributes.update(path.id, payload))
      .handle("delete", ({ path }) => attributes.delete(path.id))
      .handle("usage", ({ path }) => attributes.usage(path.id))
  }))

export const FamiliesLive = HttpApiBuilder.group(CatalogApi, "families", (handlers) =>
  Effect.gen(function*() {
    const families = yield* Families
    return handlers
      .handle("list", ({ urlParams }) => families.list(urlParams.entityKind ?? "product"))
      .handle("create", ({ payload }) => families.create(payload).pipe(locatedAt((made) => `/v1/attribute-families/${made.id}`)))
      .handle("get", ({ path }) => families.get(path.id))
      .handle("update", ({ path, payload }) => families.update(path.id, payload))
      .handle("delete", ({ path }) => families.delete(path.id))
      .handle("attach", ({ path, payload }) => families.attach(path.id, payload))
      .handle("updateAttachment", ({ path, payload }) => families.updateAttachment(path.id, path.attributeId, payload))
      .handle("detach", ({ path }) => families.detach(path.id, path.attributeId))
  }))
