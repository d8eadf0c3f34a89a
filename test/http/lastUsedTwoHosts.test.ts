import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startTestHost, type TestHost } from "../support/TestHost.js"

// Two processes on one database, each with its own memory of when it last recorded a key's use.
describe("last use of a key used through two processes", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-two-hosts-"))
  let first: TestHost
  let second: TestHost
  beforeAll(async () => {
    const databaseUrl = `sqlite:${join(folder, "catalog.db")}`
    first = await startTestHost({ databaseUrl })
    second = await startTestHost({ databaseUrl })
  })
  afterAll(async () => {
    await second.close()
    await first.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it("is written once a minute at most, not once by each process", async () => {
    const t = await first.tenant()
    const lastUsedAt = async (): Promise<string | null> =>
      (await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === t.apiKeyId).lastUsedAt
    expect((await first.request("GET", "/v1/me", { auth: t.apiKey })).status).toBe(200)
    let recorded: string | null = null
    for (let i = 0; i < 40 && recorded === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      recorded = await lastUsedAt()
    }
    expect(recorded).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/))

    // The second process has not recorded a use of this key itself; the database has one from this minute.
    expect((await second.request("GET", "/v1/me", { auth: t.apiKey })).status).toBe(200)
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await lastUsedAt()).toBe(recorded)
    }
  })
})
