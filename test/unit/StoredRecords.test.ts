import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { IntColumn, JsonColumn } from "../../adapters/sql/Columns.js"
import { storedRecords } from "../../adapters/sql/StoredRecords.js"

class Label extends Schema.Class<Label>("Label")({
  code: Schema.String.pipe(Schema.pattern(/^[a-z]+$/)),
  position: Schema.Number,
  text: Schema.Record({ key: Schema.String, value: Schema.String })
}) {}

const Row = Schema.Struct({ code: Schema.String, position: IntColumn, text: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.String })) })
const labels = storedRecords(Row, Label)

describe("storedRecords", () => {
  it.effect("builds the records from their rows as both dialects return them", () =>
    Effect.gen(function*() {
      const read = yield* labels([{ code: "size", position: "2", text: "{\"en\":\"Size\"}" }, { code: "fit", position: 1, text: { en: "Fit" } }])
      expect(read).toStrictEqual([new Label({ code: "size", position: 2, text: { en: "Size" } }), new Label({ code: "fit", position: 1, text: { en: "Fit" } })])
      expect(read[0]).toBeInstanceOf(Label)
    }))

  it.effect("leaves the domain's checks to the write: a stored value they would refuse now is read as stored", () =>
    Effect.gen(function*() {
      const [read] = yield* labels([{ code: "Legacy-Code", position: 0, text: "{}" }])
      expect(read?.code).toBe("Legacy-Code")
    }))

  it.effect("dies on a row whose columns do not decode", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(labels([{ code: "size", position: "two", text: "{}" }]))
      expect(Exit.isFailure(exit) && !Exit.isInterrupted(exit) && exit.cause._tag === "Die").toBe(true)
    }))
})
