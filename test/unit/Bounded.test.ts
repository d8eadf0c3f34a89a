import { Either, JSONSchema, ParseResult, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BoundedArray, BoundedMap } from "../../core/shared/Bounded.js"
import { Uuid } from "../../core/shared/Fields.js"

const Tags = BoundedArray(Schema.String, 3, "at most 3 tags")
const Plain = Schema.Array(Schema.String).pipe(Schema.maxItems(3, { message: () => "at most 3 tags" }))
const issuesOf = (schema: Schema.Schema<any, any>, input: unknown) => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  return Either.isLeft(decoded) ? ParseResult.ArrayFormatter.formatErrorSync(decoded.left) : []
}

describe("an array with a bound", () => {
  it("decodes and encodes as the array it bounds", () => {
    expect(Schema.decodeUnknownSync(Tags)(["a", "b"])).toEqual(["a", "b"])
    expect(Schema.encodeSync(Tags)(["a"])).toEqual(["a"])
    const Ids = BoundedArray(Uuid, 2, "at most 2 ids")
    expect(Schema.decodeUnknownSync(Ids)(["0192F5A8-9C3E-7000-8000-000000000001"])).toEqual(["0192f5a8-9c3e-7000-8000-000000000001"])
  })

  it("refuses one over the bound for its length alone, as maxItems words it", () => {
    expect(issuesOf(Tags, [1, 2, 3, 4])).toEqual([{ _tag: "Refinement", path: [], message: "at most 3 tags" }])
    expect(issuesOf(Plain, [1, 2, 3, 4]).map((i) => i.message)).toEqual([
      "Expected string, actual 1",
      "Expected string, actual 2",
      "Expected string, actual 3",
      "Expected string, actual 4",
      "at most 3 tags"
    ])
  })

  it("reads no item of a list over the bound", () => {
    const read: Array<unknown> = []
    const Watched = BoundedArray(Schema.String.pipe(Schema.filter((s) => read.push(s) > 0)), 3, "at most 3")
    expect(issuesOf(Watched, ["a", "b", "c", "d"])).toHaveLength(1)
    expect(read).toEqual([])
    expect(issuesOf(Watched, ["a", "b", "c"])).toEqual([])
    expect(read).toEqual(["a", "b", "c"])
  })

  it("reports every bad item of a list within the bound, and a value that is no list as before", () => {
    expect(issuesOf(Tags, ["a", 2, 3])).toEqual(issuesOf(Plain, ["a", 2, 3]))
    expect(issuesOf(Tags, "abc")).toEqual(issuesOf(Plain, "abc"))
  })

  it("is documented as the array with maxItems", () => {
    const Body = (tags: Schema.Schema<ReadonlyArray<string>, ReadonlyArray<string>>) => Schema.Struct({ tags, ids: BoundedArray(Uuid, 2, "at most 2") })
    const ids = Schema.Array(Uuid).pipe(Schema.maxItems(2))
    expect(JSONSchema.make(Body(Tags))).toEqual(JSONSchema.make(Schema.Struct({ tags: Plain, ids })))
  })
})

describe("a map with a bound", () => {
  const Labels = BoundedMap(Schema.Record({ key: Schema.String, value: Schema.String }), 2, "at most 2 locales")

  it("decodes the map it bounds, and refuses one over the bound for its key count alone", () => {
    expect(Schema.decodeUnknownSync(Labels)({ en: "a", fr: "b" })).toEqual({ en: "a", fr: "b" })
    expect(issuesOf(Labels, { en: 1, fr: 2, de: 3 })).toEqual([{ _tag: "Refinement", path: [], message: "at most 2 locales" }])
    expect(issuesOf(Labels, { en: 1 }).map((i) => i.path)).toEqual([["en"]])
    expect(issuesOf(Labels, ["en", "fr", "de"]).map((i) => i.message)).toEqual([expect.stringMatching(/^Expected \{/)])
  })

  it("is documented with maxProperties", () => {
    expect(JSONSchema.make(Labels)).toMatchObject({ type: "object", maxProperties: 2, additionalProperties: { type: "string" } })
  })
})
