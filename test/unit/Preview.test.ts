import { describe, expect, it } from "vitest"
import { PREVIEW_CHARACTERS, preview } from "../../core/shared/Preview.js"

describe("the preview of a refused value", () => {
  it("leaves a short value to be shown whole", () => {
    for (const v of [5, "abc", null, true, [1, "a"], { a: [1, 2] }, "x".repeat(PREVIEW_CHARACTERS - 2)]) expect(preview(v)).toBeUndefined()
  })

  it("shows the start of a long string, an array or an object, marked where cut", () => {
    expect(preview("x".repeat(1_000_000))).toBe(`"${"x".repeat(PREVIEW_CHARACTERS)}…"`)
    const many = preview(Array.from({ length: 1_000_000 }, (_, i) => i))
    expect(many).toMatch(/^\[0,1,2,.*,…\]$/)
    expect(many!.length).toBeLessThan(PREVIEW_CHARACTERS + 10)
    expect(preview(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, i])))).toMatch(/^\{"k0":0,"k1":1,.*,…\}$/)
    expect(preview({ long: "y".repeat(1_000) })).toBe(`{"long":"${"y".repeat(PREVIEW_CHARACTERS)}…"}`)
    expect(preview([["z".repeat(1_000)], 1])).toBe(`[["${"z".repeat(PREVIEW_CHARACTERS)}…"]]`)
  })

  it("leaves a value that is no JSON to the default formatting", () => {
    expect(preview([new Date(0), ..."x".repeat(1_000)])).toBeUndefined()
  })
})
