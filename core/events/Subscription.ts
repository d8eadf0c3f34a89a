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

const WORD = /^[a-z0-9_]+$/

/**
 * Words joined by dots, the last of which may be `*`. Every event name has a dot
 * (`product.created`, `connector.sync.completed`): a word alone would match nothing. Checked
 * word by word: one expression with a group per word overflowed the regular expression
 * engine's stack on a pattern of millions of words (a 500).
 */
const isEventPattern = (s: string): boolean => {
  const words = s.split(".")
  return words.length >= 2 && words.every((word, i) => WORD.test(word) || (i === words.length - 1 && word === "*"))
}

/** An event name (`product.created`) or a prefix pattern ending in `.*` (`product.*`). */
export const EventPattern = Schema.String.pipe(
  Schema.filter(isEventPattern, {
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
