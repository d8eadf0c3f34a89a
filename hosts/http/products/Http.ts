import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Products } from "../../../core/products/Products.js"
import { CatalogApi } from "../Api.js"
import { errorObject } from "../Errors.js"

/** Node encodes the text as it writes it. */
const jsonResponse = (json: string) =>
  HttpServerResponse.raw(json, { contentType: "application/json", contentLength: Buffer.byteLength(json) })

export const ProductsLive = HttpApiBuilder.group(CatalogApi, "products", (handlers) =>
  Effect.gen(function*() {
    const products = yield* Products
    return handlers
      // A list never resolves values: the stored JSON is the answer, as for a plain read by id.
      .handle("list", ({ urlParams }) => Effect.map(products.listJson(urlParams), jsonResponse))
      .handle("create", ({ payload }) => products.create(payload))
      .handle("facets", ({ urlParams }) => products.facets(urlParams))
      .handle("bulk", ({ payload }) =>
        Effect.map(products.bulk(payload.items), (results) => ({
          results: results.map((r) => (r.ok ? r : { ok: false as const, index: r.index, error: errorObject(r.error) }))
        })))
      // Without a scope to resolve, the stored JSON is the answer: no decode and encode round trip.
      .handle("get", ({ path, urlParams }) =>
        urlParams.locale === undefined && urlParams.channel === undefined
          ? Effect.map(products.json(path.id), jsonResponse)
          : products.get(path.id, urlParams))
      .handle("update", ({ path, payload }) => products.update(path.id, payload))
      .handle("delete", ({ path }) => products.delete(path.id))
  }))
