import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, type Duration, Effect, Exit, Layer } from "effect"
import { createServer, type Server, type Socket } from "node:net"
import { afterAll } from "vitest"
import { PostgresStorage } from "../index.js"
import { freePort } from "./support/Ports.js"

const servers: Array<Server> = []
afterAll(() => servers.forEach((s) => s.close()))

/** A server that takes connections and never says a word; answers its port and when each connection closed. */
const silentServer = () =>
  Effect.async<{ port: number; closed: Promise<void> }>((resume) => {
    let closed: (value: void) => void = () => {}
    const closedPromise = new Promise<void>((r) => (closed = r))
    const server = createServer((socket: Socket) => {
      socket.resume()
      socket.once("close", () => closed())
    })
    servers.push(server)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resume(Effect.succeed({ port: typeof address === "object" && address !== null ? address.port : 0, closed: closedPromise }))
    })
  })

/** Builds the storage and answers how it failed (typed failures, defects) and after how long. */
const build = (url: string, connectTimeout?: Duration.DurationInput) =>
  Effect.gen(function*() {
    const started = Date.now()
    const exit = yield* Effect.exit(Effect.scoped(Layer.build(PostgresStorage.layer(url, 2, connectTimeout))))
    assert(Exit.isFailure(exit))
    return { failures: [...Cause.failures(exit.cause)], defects: [...Cause.defects(exit.cause)], millis: Date.now() - started }
  })

describe("the first connection to Postgres at start-up", () => {
  it.live("fails with SqlError at once when nothing listens on the port", () =>
    Effect.gen(function*() {
      const { defects, failures, millis } = yield* build(`postgres://postgres@127.0.0.1:${yield* Effect.promise(freePort)}/catalog`)
      expect(defects).toEqual([])
      expect(failures).toHaveLength(1)
      assert(failures[0] instanceof SqlError)
      expect(String(failures[0].cause)).toContain("ECONNREFUSED")
      expect(millis).toBeLessThan(5_000)
    }))

  it.live("fails with ConnectTimeout when the server never answers, and leaves no connection behind", () =>
    Effect.gen(function*() {
      const { closed, port } = yield* silentServer()
      const { defects, failures, millis } = yield* build(`postgres://postgres:secret@127.0.0.1:${port}/catalog`, "300 millis")
      expect(defects).toEqual([])
      expect(failures).toEqual([new PostgresStorage.ConnectTimeout({ server: `127.0.0.1:${port}`, millis: 300 })])
      expect(failures[0]?.message).toBe(`Postgres at 127.0.0.1:${port} did not answer within 0.3 s`)
      expect(millis).toBeGreaterThanOrEqual(300)
      expect(millis).toBeLessThan(1_300)
      // The probe's socket is dropped a second after the timeout, so a process that gives up can exit.
      yield* Effect.promise(() => closed).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "the connection stayed open" }))
    }))
})
