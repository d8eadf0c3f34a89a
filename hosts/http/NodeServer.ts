import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { envelope } from "./Errors.js"
import { closeIdleConnections, IDLE_LIMIT_MS } from "./IdleConnections.js"

/** Room for the longest request line the API invites: `ids` takes 500 UUIDs, about 18.5 KB. */
const MAX_HEADER_BYTES = 64 * 1024

const REASONS = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" } as const

const answer = (error: NodeJS.ErrnoException) => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, body: envelope("header_too_large", `the request line and headers exceed ${MAX_HEADER_BYTES / 1024} KiB`) } as const
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, body: envelope("request_timeout", "the request was not received in time") } as const
    default:
      return { status: 400, body: envelope("bad_request", "the request is not valid HTTP") } as const
  }
}

/** Answers a request no handler of the host sees, in the envelope, and closes the connection: its body is left unread. */
const refuse = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.shouldKeepAlive = false
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), connection: "close" }).end(text)
}

/**
 * An HTTP/1.1 request must name its host (RFC 9112, 3.2). Node refuses one that does not with
 * a bare 400 and no body before any handler runs; it is refused here instead, in the envelope,
 * as any other request that is not valid HTTP.
 */
const lacksHost = (request: IncomingMessage) =>
  request.httpVersionMajor === 1 && request.httpVersionMinor === 1 && request.headers.host === undefined

/**
 * The Node server under the HTTP host. Requests Node refuses before any handler runs (an
 * oversized request line, malformed HTTP, an HTTP/1.1 request without a Host header) still
 * get the API's error envelope. A connection idle for `idleLimitMillis` is closed.
 */
export const makeNodeServer = (idleLimitMillis: number = IDLE_LIMIT_MS): Server => {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false })
  closeIdleConnections(server, idleLimitMillis)
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
    const { status, body } = answer(error)
    const text = JSON.stringify(body)
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`
    )
  })
  // Node answers these itself, a bare 417 for an `Expect` other than `100-continue` and no
  // answer at all to a CONNECT, unless a listener takes them: neither reaches the host.
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    refuse(response, 417, envelope("expectation_failed", "only the expectation 100-continue is met"))
  })
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    const text = JSON.stringify(envelope("not_found", "no such route"))
    socket.on("error", () => socket.destroy())
    socket.end(`HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`)
  })
  // The host's request listener is added later, by the platform: such a request never reaches it.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>) => {
    if (event === "request" && lacksHost(args[0] as IncomingMessage)) {
      const { status, body } = answer(Object.assign(new Error("missing Host header"), { code: "HPE_MISSING_HOST" }))
      refuse(args[1] as ServerResponse, status, body)
      return true
    }
    return emit(event, ...args)
  }) as typeof server.emit
  return server
}
