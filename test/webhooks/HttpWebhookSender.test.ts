import { verify } from "@octokit/webhooks-methods"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, TestClock } from "effect"
import { createServer } from "node:net"
import * as NodeCrypto from "../../adapters/crypto/NodeCrypto.js"
import * as HttpWebhookSender from "../../adapters/webhooks/HttpWebhookSender.js"
import { signature } from "../../core/webhooks/WebhookMessage.js"
import type { WebhookOutcome } from "../../core/webhooks/WebhookSender.js"
import { clientResponses } from "../support/ClientResponses.js"
import { type Receiver, startReceiver } from "../support/Receiver.js"

const body = (text: string) => new TextEncoder().encode(text)
const request = (url: string, text = "{\"name\":\"webhook.test\"}") => ({
  url,
  headers: { "Content-Type": "application/json", "X-Service-Event": "webhook.test" },
  body: body(text)
})

/** A port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

describe("the HTTP webhook sender", () => {
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(() => receiver.close())

  const exempted = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"] })

  // An embedding app passes the option, not the host's environment variable: the message names the option.
  it("refuses an exemption that is no IP or CIDR, naming the option given", () => {
    expect(() => HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1", "intranet"] })).toThrow(
      /^allowedPrivateAddresses: not an IP or CIDR: intranet$/
    )
  })

  it.live("POSTs the exact bytes with the given headers and reports the status", () =>
    Effect.gen(function*() {
      const text = "{\"name\":\"webhook.test\",\"note\":\"caf\u00e9 \u2713\"}"
      const outcome = yield* exempted.send(request(receiver.url("/exact"), text))
      expect(outcome).toEqual({ status: 200, error: null })
      const got = receiver.received.find((r) => r.path === "/exact")
      expect(got?.method).toBe("POST")
      expect(got?.body.equals(Buffer.from(body(text)))).toBe(true)
      expect(got?.headers["content-type"]).toBe("application/json")
      expect(got?.headers["x-service-event"]).toBe("webhook.test")
      expect(got?.headers["content-length"]).toBe(String(Buffer.byteLength(text)))
    }))

  it.live("answers a header value Node refuses as the delivery's error, never as a defect", () =>
    Effect.gen(function*() {
      const refused = { ...request(receiver.url("/bad-header")), headers: { "X-Note": "\u20acuro" } }
      const outcome = yield* exempted.send(refused)
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("Invalid character in header content")
      expect(receiver.received.some((r) => r.path === "/bad-header")).toBe(false)
    }))

  it.live("refuses a private destination at delivery time and sends nothing", () =>
    Effect.gen(function*() {
      const guarded = HttpWebhookSender.make({ allowedPrivateAddresses: [] })
      const outcome = yield* guarded.send(request(receiver.url("/guarded")))
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("loopback")
      expect(receiver.received.some((r) => r.path === "/guarded")).toBe(false)
    }))

  it.live("checks the address a name resolves to when connecting, so DNS rebinding is refused", () =>
    Effect.gen(function*() {
      let lookups = 0
      // Public when the connector is installed, loopback by the time a delivery connects.
      const rebinding: HttpWebhookSender.Resolver = async () =>
        lookups++ === 0 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }]
      const sender = HttpWebhookSender.make({ allowedPrivateAddresses: [], resolve: rebinding })
      const url = `http://rebind.test:${receiver.port}/rebound`
      yield* sender.checkDestination(url)
      const outcome = yield* sender.send(request(url))
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("refused")
      expect(receiver.received.some((r) => r.path === "/rebound")).toBe(false)
    }))

  it.live("connects to the address it checked", () =>
    Effect.gen(function*() {
      const sender = HttpWebhookSender.make({
        allowedPrivateAddresses: ["127.0.0.1/32"],
        resolve: async () => [{ address: "127.0.0.1", family: 4 }]
      })
      const outcome = yield* sender.send(request(`http://receiver.test:${receiver.port}/by-name`))
      expect(outcome).toEqual({ status: 200, error: null })
      expect(receiver.received.find((r) => r.path === "/by-name")?.headers.host).toBe(`receiver.test:${receiver.port}`)
    }))

  it.live("does not follow redirects", () =>
    Effect.gen(function*() {
      receiver.answer("/moved", { status: 302, headers: { location: receiver.url("/target") } })
      const outcome = yield* exempted.send(request(receiver.url("/moved")))
      expect(outcome.status).toBe(302)
      expect(receiver.received.some((r) => r.path === "/target")).toBe(false)
    }))

  it.live("reports a 101 as the status it is, not as a timeout", () =>
    Effect.gen(function*() {
      // Node hands a 101 over as an upgrade, not as a response.
      const server = createServer((socket) => {
        socket.once("data", () => socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
        socket.on("error", () => {})
      })
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) =>
          server.listen(0, "127.0.0.1", () => {
            const address = server.address()
            resolve(typeof address === "object" && address !== null ? address.port : 0)
          })
        )
      )
      const sender = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"], timeoutMs: 1_000 })
      const outcome = yield* sender.send(request(`http://127.0.0.1:${port}/upgrade`)).pipe(
        Effect.ensuring(Effect.sync(() => server.close()))
      )
      expect(outcome).toEqual({ status: 101, error: null })
    }))

  it.live("gives up after its timeout", () =>
    Effect.gen(function*() {
      receiver.answer("/slow", { delayMs: 3_000 })
      const sender = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"], timeoutMs: 200 })
      const outcome = yield* sender.send(request(receiver.url("/slow")))
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("timed out")
    }))

  it.effect("runs out on the clock of the fiber sending, also for a sender stopped while it waits uninterruptibly", () =>
    Effect.gen(function*() {
      receiver.answer("/stopped", { stall: true })
      const statuses = yield* clientResponses(receiver.port, "/stopped")
      const sender = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"], timeoutMs: 60_000 })
      const outcome = yield* Deferred.make<WebhookOutcome>()
      const sending = yield* Effect.fork(Effect.uninterruptible(
        Effect.flatMap(sender.send(request(receiver.url("/stopped"))), (o) => Deferred.succeed(outcome, o))
      ))
      expect(yield* Queue.take(statuses)).toBe(200)
      yield* Effect.fork(Fiber.interrupt(sending))
      yield* Effect.yieldNow()
      yield* TestClock.adjust("1 minute")
      expect(yield* Deferred.await(outcome)).toEqual({ status: 200, error: "timed out after 60000 ms" })
    }).pipe(Effect.scoped))

  it.live("stops reading an answer larger than its bound, and takes its status as for any answer", () =>
    Effect.gen(function*() {
      receiver.answer("/big", { body: Buffer.alloc(256 * 1024, 120) })
      receiver.answer("/big-refusal", { status: 503, body: Buffer.alloc(256 * 1024, 120) })
      const sender = HttpWebhookSender.make({ allowedPrivateAddresses: ["127.0.0.1/32"], maxResponseBytes: 1024 })
      expect(yield* sender.send(request(receiver.url("/big")))).toEqual({ status: 200, error: null })
      expect(yield* sender.send(request(receiver.url("/big-refusal")))).toEqual({ status: 503, error: null })
    }))

  it.live("reports headers Node refuses as it writes them as the attempt's error, instead of throwing", () =>
    Effect.gen(function*() {
      const withTrailer = { ...request(receiver.url("/trailer")), headers: { ...request(receiver.url("/trailer")).headers, Trailer: "X-Foo" } }
      const outcome = yield* exempted.send(withTrailer)
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("Trailers are invalid")
    }))

  it.live("reports a network error instead of failing", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(closedPort)
      const outcome = yield* exempted.send(request(`http://127.0.0.1:${port}/hook`))
      expect(outcome.status).toBeNull()
      expect(outcome.error).toContain("ECONNREFUSED")
    }))
})

describe("webhook signatures", () => {
  it.effect("match GitHub's published test vector", () =>
    Effect.gen(function*() {
      const signed = yield* signature("It's a Secret to Everybody", body("Hello, World!"))
      expect(signed).toBe("sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
    }).pipe(Effect.provide(NodeCrypto.layer)))

  it.effect("verify with an independent implementation, over non-ASCII bodies too", () =>
    Effect.gen(function*() {
      const secret = "whsec-0123456789abcdef"
      const payload = JSON.stringify({ name: "product.updated", payload: { name: "Crème brûlée ✓" } })
      const signed = yield* signature(secret, body(payload))
      expect(yield* Effect.promise(() => verify(secret, payload, signed))).toBe(true)
      expect(yield* Effect.promise(() => verify("another-secret-entirely", payload, signed))).toBe(false)
      expect(yield* Effect.promise(() => verify(secret, `${payload} `, signed))).toBe(false)
    }).pipe(Effect.provide(NodeCrypto.layer)))
})
