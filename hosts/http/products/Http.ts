import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Products } from "../../../core/products/Products.js"
import { ValidationFailed } from "../../../core/shared/Errors.js"
import { CatalogApi } from "../Api.js"
import { errorObject } from "../Errors.js"
import { unstorableStrings } from "../../../core/shared/UntrustedInput.js"
import { locatedAt } from "../Location.js"

/** Node encodes the text as it writes it. */
const jsonResponse = (json: string) =>
  HttpServerResponse.raw(json, { contentType: "application/json", contentLength: Buffer.byteLength(json) })

export const ProductsLive = HttpApiBuilder.group(CatalogApi, "products", (handlers) =>
  Effect.gen(function*() {
    const products = yield* Products
    return handlers
      // A list never resolves values: the stored JSON is the answer, as for a plain read by id.
      .handle("list", ({ urlParams }) => Effect.map(products.listJson(urlParams), jsonResponse))
      .handle("create", ({ payload }) => products.create(payload).pipe(locatedAt((made) => `/v1/products/${made.id}`)))
      .handle("facets", ({ urlParams }) => products.facets(urlParams))
      .handle("bulk", ({ payload }) => {
        // An item holding text no database can store alike fails alone, as any invalid item does;
        // the others are written in their order.
        const refused = new Map<number, ValidationFailed>()
        payload.items.forEach((item, index) => {
          const issues = unstorableStrings(item)
          if (issues.length > 0) refused.set(index, ValidationFailed.of(issues))
        })
        const kept = payload.items.flatMap((_, index) => (refused.has(index) ? [] : [index]))
        return Effect.map(products.bulk(kept.map((i) => payload.items[i])), (results) => ({
          results: [
            ...results.map((r) => ({ ...r, index: kept[r.index] ?? r.index })),
            ...[...refused].map(([index, error]) => ({ ok: false as const, index, error }))
          ]
            .sort((a, b) => a.index - b.index)
            .map((r) => (r.ok ? r : { ok: false as const, index: r.index, error: errorObject(r.error) }))
        }))
      })
      // Without a scope to resolve, the stored JSON is the answer: no decode and encode round trip.
      .handle("get", ({ path, urlParams }) =>
        urlParams.locale === undefined && urlParams.channel === undefined
          ? Effect.map(products.json(path.id), jsonResponse)
          : products.get(path.id, urlParams))
      .handle("update", ({ path, payload }) => products.update(path.id, payload))
      .handle("delete", ({ path }) => products.delete(path.id))
  }))
