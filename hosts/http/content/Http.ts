import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { ContentPages } from "../../../core/content/ContentPages.js"
import { CatalogApi } from "../Api.js"
import { locatedAt } from "../Location.js"

export const ContentPagesLive = HttpApiBuilder.group(CatalogApi, "contentPages", (handlers) =>
  Effect.gen(function*() {
    const pages = yield* ContentPages
    return handlers
      .handle("list", ({ urlParams: q }) =>
        pages.list({ status: q.status, slug: q.slug, familyId: q.familyId, limit: q.limit ?? 50, offset: q.offset ?? 0 }))
      .handle("create", ({ payload }) => pages.create(payload).pipe(locatedAt((made) => `/v1/content-pages/${made.id}`)))
      .handle("get", ({ path }) => pages.get(path.id))
      .handle("update", ({ path, payload }) => pages.update(path.id, payload))
      .handle("remove", ({ path }) => pages.remove(path.id))
  }))
