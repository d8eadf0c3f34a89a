import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..")

// The README documents this bench and its numbers: it must still run on today's schema, which
// later migrations changed under the rows it seeds.
describe("the audit log's bench", () => {
  it("runs through on SQLite, before and after migration 32, and prints its table", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "bench/auditLog.ts", "--events", "300", "--runs", "1", "--only", "sqlite"],
      { cwd: root }
    )
    expect(stdout).toContain("migration 32:")
    expect(stdout).toMatch(/\| no filter \| 50 \|/)
    expect(stdout).toMatch(/\| action=deleted&date=<a day mid-way> \|/)
  }, 120_000)
})
