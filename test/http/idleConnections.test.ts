import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeNodeServer } from "../../hosts/http/NodeServer.js"
import { startTestHost } from "../support/TestHost.js"

/** Short, so that the tests need not wait two minutes; the host's own limit works alike. */
const LIMIT_MS = 500

/** A host whose Node server closes connections idle for LIMIT_MS, and the server's side of each connection. */
const idleHost = async (databaseUrl?: string) => {
  const accepted: Array<Socket> = []
  const host = await startTestHost(databaseUrl === undefined ? {} : { databaseUrl }, () => {
    const server = makeNodeServer(LIMIT_MS)
    server.on("connection", (socket: Socket) => accepted.push(socket))
    return server
  })
  /** Connects, sends `bytes`, and answers both sides of the connection. */
  const open = async (bytes: string) => {
    const url = new URL(host.baseUrl)
    const count = accepted.length
    const client = connect(Number(url.port), url.hostname)
    client.on("error", () => undefined)
    await new Promise((resolve) => client.once("connect", resolve))
    client.write(bytes)
    while (accepted.length === count) await new Promise((resolve) => setImmediate(resolve))
    const server = accepted[count]!
    return { client, closedByServer: new Promise<void>((resolve) => server.once("close", () => resolve())) }
  }
  return { host, open }
}

describe("a connection on which nothing moves", () => {
  let idle: Awaited<ReturnType<typeof idleHost>>
  afterAll(() => idle?.host.close())

  it("is closed when its client stops reading the answers, with answers still to send", async () => {
    idle = await idleHost()
    const { client, closedByServer } = await idle.open("GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(50))
    client.pause()
    await closedByServer
    let received = ""
    client.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
    await new Promise((resolve) => client.once("close", resolve).resume())
    expect(received.split("HTTP/1.1 200 OK").length - 1).toBeLessThan(50)
  })

  it("is closed when its client sends nothing, or stops sending a body", async () => {
    const silent = await idle.open("")
    const halfway = await idle.open("POST /v1/products HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"name\"")
    await Promise.all([silent.closedByServer, halfway.closedByServer])
    silent.client.destroy()
    halfway.client.destroy()
  })
})

describe("a connection waiting while the host makes its answer", () => {
  const folder = mkdtempSync(join(tmpdir(), "catalog-idle-"))
  const file = join(folder, "catalog.db")
  let idle: Awaited<ReturnType<typeof idleHost>> | undefined
  afterAll(async () => {
    await idle?.host.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it("stays open past the limit and gets its answer", async () => {
    idle = await idleHost(`sqlite:${file}`)
    const t = await idle.host.tenant()
    const familyId = (await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json.id
    // Another process holds the write lock for several limits; the write waits for it.
    const other = new Database(file)
    other.exec("BEGIN IMMEDIATE")
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec("ROLLBACK")
        other.close()
        resolve()
      }, LIMIT_MS * 5)
    )
    const created = await t.req("POST", "/v1/products", { body: { familyId, name: "Waited" } })
    await released
    expect(created.status).toBe(201)
  }, 15_000)
})
