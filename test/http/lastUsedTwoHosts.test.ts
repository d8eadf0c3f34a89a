import { describe, expect, it } from "@effect/vitest"
import { twoHostsOnOneFile } from "../support/TwoHosts.js"

// Two processes on one database, each with its own memory of when it last recorded a key's use.
describe("last use of a key used through two processes", () => {
  const hosts = twoHostsOnOneFile()

  it("is written once a minute at most, not once by each process", async () => {
    const t = await hosts.first.tenant()
    const lastUsedAt = async (): Promise<string | null> =>
      (await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === t.apiKeyId).lastUsedAt
    expect((await hosts.first.request("GET", "/v1/me", { auth: t.apiKey })).status).toBe(200)
    let recorded: string | null = null
    for (let i = 0; i < 40 && recorded === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      recorded = await lastUsedAt()
    }
    expect(recorded).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/))

    // The second process has not recorded a use of this key itself; the database has one from this minute.
    expect((await hosts.second.request("GET", "/v1/me", { auth: t.apiKey })).status).toBe(200)
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await lastUsedAt()).toBe(recorded)
    }
  })
})
