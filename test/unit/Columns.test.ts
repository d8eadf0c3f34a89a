import { Either, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { StoredAttributeValues } from "../../core/catalog/Category.js"
import { JsonColumn, StoredValuesColumn } from "../../adapters/sql/Columns.js"

const decode = Schema.decodeUnknownEither(StoredValuesColumn)
const full = Schema.decodeUnknownEither(JsonColumn(StoredAttributeValues))

describe("StoredValuesColumn", () => {
  const stored = { color: [{ locale: null, channel: null, value: "red" }], title: [{ locale: "en", channel: "web", value: { a: 1 } }] }

  it("decodes what the full schema decodes, from text (SQLite) or parsed (Postgres)", () => {
    for (const input of [JSON.stringify(stored), stored]) {
      expect(decode(input)).toEqual(Either.right(stored))
      expect(full(input)).toEqual(Either.right(stored))
    }
  })

  it("refuses what the full schema refuses", () => {
    const bad = [[], "[]", "not json", { color: "red" }, { color: [null] }, { color: [{ channel: null, value: 1 }] }, {
      color: [{ locale: 1, channel: null, value: 1 }]
    }]
    for (const input of bad) {
      expect(Either.isLeft(decode(input))).toBe(true)
      expect(Either.isLeft(full(input))).toBe(true)
    }
  })
})
