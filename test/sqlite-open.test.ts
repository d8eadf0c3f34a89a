import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { SqliteStorage } from "../index.js"

const dir = mkdtempSync(join(tmpdir(), "catalog-sqlite-open-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** How building the storage on `filename` ended: its typed failures and its defects. */
const build = (filename: string) =>
  Effect.scoped(Layer.build(SqliteStorage.layer(filename))).pipe(
    Effect.exit,
    Effect.map((exit) => {
      assert(Exit.isFailure(exit))
      return { failures: [...Cause.failures(exit.cause)], defects: [...Cause.defects(exit.cause)] }
    })
  )

describe("a SQLite database that cannot be opened", () => {
  it.effect("fails the storage layer with SqlError, not a defect, naming the file and the driver's reason", () =>
    Effect.gen(function*() {
      const notADatabase = join(dir, "notes.txt")
      writeFileSync(notADatabase, "these are not the pages of a database ".repeat(200))
      const underAFile = join(notADatabase, "catalog.db")
      for (const [filename, reason] of [[dir, "unable to open database file"], [notADatabase, "file is not a database"], [underAFile, "EEXIST"]] as const) {
        const { defects, failures } = yield* build(filename)
        expect(defects).toEqual([])
        expect(failures).toHaveLength(1)
        const failure = failures[0]
        assert(failure instanceof SqlError)
        expect(String(failure.cause)).toContain(reason)
        expect(failure.message).toContain(filename)
      }
    }))
})
