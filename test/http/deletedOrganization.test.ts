import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { persistentTestDatabase, type TestDatabase } from "../support/TestDatabase.js"
import { startTestHost, type TestHost } from "../support/TestHost.js"
import { twoHostsOnOneFile } from "../support/TwoHosts.js"

// Two processes on one database: the second still holds an API key of an organization the first deleted.
describe("a write by a process that still holds the key of a deleted organization", () => {
  const hosts = twoHostsOnOneFile()

  it("answers 401, as a process that never saw the key does", async () => {
    const t = await hosts.first.tenant()
    const auth = t.apiKey
    expect((await hosts.second.request("GET", "/v1/brands", { auth })).status).toBe(200)
    const deleted = await t.sreq("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: t.organization.slug } })
    expect(deleted.status).toBe(200)
    expect((await hosts.first.request("POST", "/v1/brands", { auth, body: { name: "Late" } })).status).toBe(401)

    const late = await hosts.second.request("POST", "/v1/brands", { auth, body: { name: "Late" } })
    expect(late.status).toBe(401)
    expect(late.json).toEqual({ error: { code: "unauthenticated", message: `organization ${t.organization.id} no longer exists` } })
    const group = await hosts.second.request("POST", "/v1/attribute-groups", { auth, body: { code: "late", label: { en: "Late" } } })
    expect(group.status).toBe(401)
  })
})

// A webhook test is sent outside any transaction, then recorded: the organization may be deleted in between.
describe("a webhook test whose organization is deleted while the receiver answers", () => {
  let database: TestDatabase
  let host: TestHost
  beforeAll(async () => {
    database = await persistentTestDatabase()
    host = await startTestHost({ databaseUrl: database.url })
  })
  afterAll(async () => {
    await host.close()
    await database.drop()
  })

  it("answers 401 and leaves no event of the organization but its tombstone", async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let arrived = () => {}
    const received = new Promise<void>((resolve) => (arrived = resolve))
    const receiver = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        arrived()
        void held.then(() => res.writeHead(200).end())
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    try {
      const port = (receiver.address() as AddressInfo).port
      const t = await host.tenant()
      const connector = await t.req("POST", "/v1/connectors", {
        body: { type: "headless", name: "late", config: { destination_url: `http://127.0.0.1:${port}/hook`, secret: "a-very-long-secret-value" } }
      })
      expect(connector.status).toBe(201)
      const test = t.req("POST", `/v1/connectors/${connector.json.id}/webhooks/test`)
      await received
      const deleted = await t.sreq("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: t.organization.slug } })
      expect(deleted.status).toBe(200)
      release()
      const answer = await test
      expect(answer.status).toBe(401)
      expect(answer.json).toEqual({ error: { code: "unauthenticated", message: `organization ${t.organization.id} no longer exists` } })
      const rows = await database.query(`select name from events where organization_id = '${t.organization.id}'`)
      expect(rows.map((r) => r.name)).toEqual(["organization.deleted"])
    } finally {
      release()
      await new Promise((resolve) => receiver.close(resolve))
    }
  })
})
