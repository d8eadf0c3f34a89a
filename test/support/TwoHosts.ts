import { afterAll, beforeAll } from "@effect/vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startTestHost, type TestHost } from "./TestHost.js"

/**
 * Two hosts on one SQLite file, as two processes on one database, each with a memory of its
 * own: started before the calling file's tests and closed after them. Read them in the tests.
 */
export const twoHostsOnOneFile = (): { readonly first: TestHost; readonly second: TestHost } => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-two-hosts-"))
  const hosts: { first?: TestHost; second?: TestHost } = {}
  beforeAll(async () => {
    const databaseUrl = `sqlite:${join(folder, "catalog.db")}`
    hosts.first = await startTestHost({ databaseUrl })
    hosts.second = await startTestHost({ databaseUrl })
  })
  afterAll(async () => {
    await hosts.second?.close()
    await hosts.first?.close()
    rmSync(folder, { recursive: true, force: true })
  })
  return {
    get first() {
      return hosts.first!
    },
    get second() {
      return hosts.second!
    }
  }
}
