/**
 * The path as the router reads a request target: without an absolute form's scheme and host
 * or the query, with runs of slashes as one. The router also ignores case: compare with `i`.
 */
export const routePath = (url: string): string =>
  (url.split("?")[0] ?? "").replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/\/{2,}/g, "/")
