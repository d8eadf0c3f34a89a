import type { HttpApi } from "@effect/platform"
import { routePath } from "./RoutePath.js"

/**
 * Whether a request goes to an endpoint that takes no body, which HttpApi then never reads: a
 * malformed JSON body sent there would pass unseen, and the action run.
 */
export const takesNoBody = (api: HttpApi.HttpApi.Any): (method: string, url: string) => boolean => {
  const routes: Array<{ readonly method: string; readonly path: RegExp }> = []
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      if (endpoint.payloadSchema._tag === "Some" || endpoint.method === "GET" || endpoint.method === "HEAD") continue
      const pattern = endpoint.path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      routes.push({ method: endpoint.method, path: new RegExp(`^${pattern.join("/")}/?$`, "i") })
    }
  }
  return (method, url) => {
    const path = routePath(url)
    return routes.some((route) => route.method === method && route.path.test(path))
  }
}
