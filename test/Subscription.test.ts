import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { DEFAULT_SUBSCRIPTION, EventPattern, matches, subscribed } from "../core/events/Subscription.js"

const segment = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)
const eventName = fc.array(segment, { minLength: 2, maxLength: 3 }).map((parts) => parts.join("."))

describe("event subscriptions", () => {
  it.each([
    ["product.*", "product.created", true],
    ["product.*", "product.updated", true],
    ["product.*", "product_modifier.updated", false],
    ["product.*", "product_relationship.created", false],
    ["product.*", "product", false],
    ["connector.*", "connector.sync.completed", true],
    ["connector.sync.completed", "connector.sync.completed", true],
    ["media.deleted", "media.detached", false],
    ["product.created", "product.created.extra", false]
  ])("%s covers %s: %s", (pattern, name, expected) => {
    expect(matches(pattern, name)).toBe(expected)
  })

  it("a prefix pattern covers exactly the names that start with its prefix and a dot", () => {
    fc.assert(fc.property(segment, eventName, (prefix, name) => {
      expect(matches(`${prefix}.*`, name)).toBe(name.split(".")[0] === prefix)
    }))
  })

  it("subscribes a new install to the specification's default list, which does not cover other events", () => {
    expect(DEFAULT_SUBSCRIPTION).toHaveLength(16)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "product_modifier.deleted")).toBe(true)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "media.attached")).toBe(true)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "modifier.created")).toBe(false)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "api_key.created")).toBe(false)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "organization.deleted")).toBe(false)
    expect(subscribed(DEFAULT_SUBSCRIPTION, "webhook.test")).toBe(false)
    expect(subscribed([], "product.created")).toBe(false)
  })

  it("accepts names and trailing prefix patterns only", () => {
    const valid = Schema.is(EventPattern)
    for (const ok of DEFAULT_SUBSCRIPTION) expect(valid(ok)).toBe(true)
    for (const ok of ["connector.sync.completed", "connector.sync.*", "product_modifier.*"]) expect(valid(ok), ok).toBe(true)
    for (const bad of ["", "*", "product", "product.*.created", "product*", ".created", "Product.created", "product.", "product..created"]) {
      expect(valid(bad), bad).toBe(false)
    }
  })

  it("checks a pattern of millions of words", () => {
    const valid = Schema.is(EventPattern)
    expect(valid(`${"a.".repeat(4_000_000)}b`)).toBe(true)
    expect(valid(`${"a.".repeat(4_000_000)}*.b`)).toBe(false)
  })

  it("accepts what the one expression it replaces accepted", () => {
    const EXPRESSION = /^[a-z0-9_]+(\.[a-z0-9_]+)*\.([a-z0-9_]+|\*)$/
    const valid = Schema.is(EventPattern)
    const parts = fc.constantFrom("a", "_", "0", ".", "*", "A", "-", " ")
    fc.assert(fc.property(fc.array(parts, { maxLength: 10 }).map((p) => p.join("")), (s) => {
      expect(valid(s), s).toBe(EXPRESSION.test(s))
    }), { numRuns: 2000 })
  })
})
