import { Duration, Effect, Layer } from "effect"
import { lookup as dnsLookup } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import type { Duplex } from "node:stream"
import { DestinationRefused, type WebhookOutcome, type WebhookRequest, WebhookSender } from "../../core/webhooks/WebhookSender.js"
import { type AddressGuard, invalidExemptions, makeAddressGuard } from "./AddressGuard.js"

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export interface HttpWebhookSenderOptions {
  /** IPs or CIDRs exempt from the private-address guard (CATALOG_WEBHOOK_ALLOWED_PRIVATE_ADDRESSES). */
  readonly allowedPrivateAddresses: ReadonlyArray<string>
  /** The whole attempt, from connecting to the end of the answer. Default 10 s. */
  readonly timeoutMs?: number
  /** At most this much of the answer is read. Default 64 KiB. */
  readonly maxResponseBytes?: number
  /** Install-time resolution gives up after this long. Default 3 s. */
  readonly resolveTimeoutMs?: number
  /** The system resolver unless told otherwise. */
  readonly resolve?: Resolver
}

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))))

/**
 * RFC 6761: these names are the loopback interface, whatever a resolver says. The
 * specification refuses localhost by name, so no address exemption lets them through.
 */
const isLocalhostName = (hostname: string) => {
  const name = hostname.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost")
}

/** The literal IP of a URL's host (URL has already normalized `127.1`, `2130706433`, ...), if it is one. */
const literalAddress = (hostname: string): string | undefined => {
  if (hostname.startsWith("[")) return hostname.slice(1, -1)
  return /^\d+\.\d+\.\d+\.\d+$/.test(hostname) ? hostname : undefined
}

class RefusedAddress extends Error {
  readonly code = "EDESTINATIONREFUSED"
}

/**
 * Checks where a name leads: the addresses the guard allows, or why none is allowed. The
 * same check runs inside each connection (the socket's `lookup`), so the address checked
 * is the address connected to, and DNS rebinding after install gains nothing.
 */
const allowedAddresses = (guard: AddressGuard, resolve: Resolver) => async (hostname: string): Promise<ReadonlyArray<ResolvedAddress>> => {
  if (isLocalhostName(hostname)) throw new RefusedAddress(`destination refused: ${hostname} is localhost`)
  const addresses = await resolve(hostname)
  const allowed = addresses.filter((a) => guard.refusal(a.address) === undefined)
  if (allowed.length === 0) {
    const reasons = addresses.map((a) => guard.refusal(a.address)).join("; ")
    throw new RefusedAddress(`destination refused: ${hostname} resolves only to refused addresses (${reasons || "none"})`)
  }
  return allowed
}

export const make = (options: HttpWebhookSenderOptions) => {
  const invalid = invalidExemptions(options.allowedPrivateAddresses)
  if (invalid.length > 0) throw new Error(`allowedPrivateAddresses: not an IP or CIDR: ${invalid.join(", ")}`)
  const guard = makeAddressGuard(options.allowedPrivateAddresses)
  const resolveAllowed = allowedAddresses(guard, options.resolve ?? systemResolver)
  const timeoutMs = options.timeoutMs ?? 10_000
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024
  const resolveTimeoutMs = options.resolveTimeoutMs ?? 3_000

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolveAllowed(hostname).then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined
        const usable = family === undefined ? addresses : addresses.filter((a) => a.family === family)
        const first = usable[0]
        if (first === undefined) {
          callback(new RefusedAddress(`destination refused: ${hostname} has no allowed IPv${family} address`), "", 0)
        } else if (lookupOptions.all === true) {
          callback(null, usable.map((a) => ({ address: a.address, family: a.family })))
        } else {
          callback(null, first.address, first.family)
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0)
    )
  }

  /** Scheme and literal-address checks: what the socket's lookup never sees. */
  const precheck = (url: string): string | undefined => {
    if (!URL.canParse(url)) return "destination is not a URL"
    const { hostname, protocol } = new URL(url)
    if (protocol !== "http:" && protocol !== "https:") return "destination must be http or https"
    const literal = literalAddress(hostname)
    if (literal === undefined) return undefined
    const why = guard.refusal(literal)
    return why === undefined ? undefined : `destination refused: ${why}`
  }

  const checkDestination = (url: string): Effect.Effect<void, DestinationRefused> =>
    Effect.gen(function*() {
      const problem = precheck(url)
      if (problem !== undefined) return yield* new DestinationRefused({ reason: problem })
      const { hostname } = new URL(url)
      if (literalAddress(hostname) !== undefined) return
      // A name that does not resolve now is accepted: it is checked again at every delivery.
      const outcome = yield* Effect.tryPromise(() => resolveAllowed(hostname)).pipe(
        Effect.timeout(resolveTimeoutMs),
        Effect.match({
          onFailure: (e) => (e._tag === "UnknownException" && e.error instanceof RefusedAddress ? e.error.message : undefined),
          onSuccess: () => undefined
        })
      )
      if (outcome !== undefined) return yield* new DestinationRefused({ reason: outcome })
    })

  const send = (request: WebhookRequest): Effect.Effect<WebhookOutcome> => {
    const problem = precheck(request.url)
    if (problem !== undefined) return Effect.succeed({ status: null, error: problem })
    // The timeout sleeps on the fiber's clock, so that a test decides when an attempt runs out,
    // and on a fiber of its own: a child would be interrupted with a dispatcher stopping
    // mid-send, and the attempt, which it sends uninterruptibly, would then never time out.
    return Effect.clockWith((clock) =>
      Effect.async<WebhookOutcome>((resume) => {
        const url = new URL(request.url)
        const client = url.protocol === "https:" ? https : http
        let settled = false
        let status: number | null = null
        const finish = (outcome: WebhookOutcome) => {
          if (settled) return
          settled = true
          stopTimer()
          req.destroy()
          resume(Effect.succeed(outcome))
        }
        let req: http.ClientRequest
        try {
          req = client.request(url, {
            method: "POST",
            headers: { ...request.headers, "Content-Length": String(request.body.byteLength) },
            lookup,
            agent: false
          }, onResponse)
        } catch (e) {
          // Node refuses some header values synchronously; that is this delivery's outcome.
          resume(Effect.succeed({ status: null, error: e instanceof Error ? e.message : String(e) }))
          return
        }
        function onResponse(res: http.IncomingMessage) {
          status = res.statusCode ?? null
          let received = 0
          res.on("data", (chunk: Buffer) => {
            received += chunk.byteLength
            // Enough read: the status decides, as for any answer; the rest is not waited for.
            if (received > maxResponseBytes) finish({ status, error: null })
          })
          res.on("end", () => finish({ status, error: null }))
          res.on("error", (e) => finish({ status, error: e.message }))
        }
        const stopTimer = Effect.runCallback(clock.sleep(Duration.millis(timeoutMs)), {
          onExit: () => finish({ status, error: `timed out after ${timeoutMs} ms` })
        })
        req.on("error", (e) => finish({ status, error: e.message }))
        // A 101 comes as an upgrade, never as a response: without this, Node drops the socket
        // silently and the attempt would wait out its timeout although the receiver answered.
        req.on("upgrade", (res: http.IncomingMessage, socket: Duplex) => {
          socket.destroy()
          finish({ status: res.statusCode ?? null, error: null })
        })
        try {
          req.end(request.body)
        } catch (e) {
          // Node checks some headers only as it writes them (`Trailer` beside a length).
          finish({ status: null, error: e instanceof Error ? e.message : String(e) })
        }
        return Effect.sync(() => {
          settled = true
          stopTimer()
          req.destroy()
        })
      })
    )
  }

  return WebhookSender.of({ checkDestination, send })
}

/** Webhooks over HTTP(S) from this process, behind the private-address guard. */
export const layer = (options: HttpWebhookSenderOptions) => Layer.sync(WebhookSender, () => make(options))
