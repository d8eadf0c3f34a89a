import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Brands } from "../../../core/catalog/Brands.js"
import { Categories } from "../../../core/catalog/Categories.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const CategoriesLive = HttpApiBuilder.group(CatalogApi, "categories", (handlers) =>
  Effect.gen(function*() {
    const categories = yield* Categories
    return handlers
      .handle("list", ({ urlParams }) => categories.list(urlParams))
      .handle("create", ({ payload }) => categories.create(payload).pipe(locatedAt((made) => `/v1/categories/${made.id}`)))
      .handle("get", ({ path }) => categories.get(path.id))
      .handle("update", ({ path, payload }) => categories.update(path.id, payload))
      .handle("delete", ({ path }) => categories.delete(path.id))
  }))

export const BrandsLive = HttpApiBuilder.group(CatalogApi, "brands", (handlers) =>
  Effect.gen(function*() {
    const brands = yield* Brands
    return handlers
      .handle("list", ({ urlParams }) => brands.list(urlParams))
      .handle("create", ({ payload }) => brands.create(payload).pipe(locatedAt((made) => `/v1/brands/${made.id}`)))
      .handle("get", ({ path }) => brands.get(path.id))
      .handle("update", ({ path, payload }) => brands.update(path.id, payload))
      .handle("delete", ({ path }) => brands.delete(path.id))
  }))
