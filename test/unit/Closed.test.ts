import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ClosedStruct } from "../../core/shared/Closed.js"
import { MAX_ISSUES } from "../../core/shared/Errors.js"
import { strict } from "../../core/shared/Fields.js"
import { InstallConnector } from "../../core/connectors/Connector.js"

const fields = { locale: Schema.optional(Schema.String), enabled: Schema.optional(Schema.Boolean) }
const Closed = ClosedStruct(fields)
const Plain = Schema.Struct(fields).annotations(strict)
const issuesOf = (schema: Schema.Schema<any, any>, input: unknown) => {
  const decoded = Schema.decodeUnknownEither(schema)(input)
  return Either.isLeft(decoded) ? ParseResult.ArrayFormatter.formatErrorSync(decoded.left) : []
}
const withUnknownKeys = (count: number, base: Record<string, unknown> = {}) =>
  Object.fromEntries([...Object.entries(base), ...Array.from({ length: count }, (_, i) => [`k${i}`, i])])

describe("a closed map", () => {
  it("decodes and refuses as the strict struct it closes while it has few unknown keys", () => {
    expect(Schema.decodeUnknownSync(Closed)({ locale: "en" })).toEqual({ locale: "en" })
    const input = withUnknownKeys(3, { locale: 1 })
    expect(issuesOf(Closed, input)).toEqual(issuesOf(Plain, input))
    expect(issuesOf(Closed, "x")).toEqual(issuesOf(Plain, "x"))
  })

  it("refuses many unknown keys with the first ones a refusal lists, and more, the rest unread", () => {
    const input = withUnknownKeys(5000, { locale: 1 })
    let read = 0
    for (let i = 200; i < 5000; i++) Object.defineProperty(input, `k${i}`, { get: () => ++read, enumerable: true })
    const issues = issuesOf(Closed, input)
    expect(issues.length).toBeGreaterThan(MAX_ISSUES)
    expect(issues.slice(0, MAX_ISSUES)).toEqual(issuesOf(Plain, withUnknownKeys(MAX_ISSUES + 1, { locale: 1 })).slice(0, MAX_ISSUES))
    expect(read).toBe(0)
  })

  it("keeps an own key __proto__ as a key, not as the prototype", () => {
    const input = JSON.parse(`{"__proto__":{"locale":"en"},${Array.from({ length: 200 }, (_, i) => `"k${i}":1`).join(",")}}`)
    expect(issuesOf(Closed, input)[0]?.path).toEqual(["__proto__"])
  })

  it("is documented as the struct it closes", () => {
    expect(JSONSchema.make(Closed)).toEqual(JSONSchema.make(Plain))
  })

  it("closes a connector's config", () => {
    const config = withUnknownKeys(1000, { destination_url: "https://example.com/hook", secret: "0123456789abcdef" })
    let read = 0
    for (let i = 200; i < 1000; i++) Object.defineProperty(config, `k${i}`, { get: () => ++read, enumerable: true })
    expect(issuesOf(InstallConnector, { type: "headless", name: "n", config }).length).toBeGreaterThan(MAX_ISSUES)
    expect(read).toBe(0)
  })
})
