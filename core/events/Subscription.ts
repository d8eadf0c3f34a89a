import { Schema } from "effect"

/** What a new headless install subscribes to, exactly as the specification lists it. */
export const DEFAULT_SUBSCRIPTION: ReadonlyArray<string> = [
  "product.*",
  "variant.*",
  "category.*",
  "brand.*",
  "content_page.*",
  "content_category.*",
  "media.attached",
  "media.detached",
  "media.association_updated",
  "media.deleted",
  "modifier.updated",
  "modifier.deleted",
  "product_modifier.*",
  "product_relationship.*",
  "connector.sync.completed",
  "catalog.wiped"
]

// Every event name has a dot (`product.created`, `connector.sync.completed`): a word alone
// would match nothing.
const PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)*\.([a-z0-9_]+|\*)$/

/** An event name (`product.created`) or a prefix pattern ending in `.*` (`product.*`). */
export const EventPattern = Schema.String.pipe(
  Schema.filter((s) => PATTERN.test(s), {
    message: () => "must be an event name such as product.created or a prefix pattern such as product.*"
  })
)

/**
 * Whether `pattern` covers the event `name`. A pattern `x.*` matches by prefix including the
 * dot, so `product.*` covers `product.created` but not `product_modifier.updated`.
 */
export const matches = (pattern: string, name: string): boolean =>
  pattern.endsWith(".*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name

export const subscribed = (patterns: ReadonlyArray<string>, name: string): boolean => patterns.some((p) => matches(p, name))
