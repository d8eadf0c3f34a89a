import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/** How long a connection may go without a byte either way before it is closed, unless the host is making an answer. */
export const IDLE_LIMIT_MS = 120_000

/**
 * Closes a connection on which no byte has moved either way for `limitMillis`: a client that
 * stopped sending its request, or stopped reading its answers, would otherwise keep the socket
 * and every answer buffered for it for good. A slow client that still sends or reads is not
 * cut. Nor is one waiting while the host makes an answer to a request it has received whole
 * (a write waiting for the database): that silence is the host's, and the limit starts again.
 */
export const closeIdleConnections = (server: Server, limitMillis: number) => {
  const requests = new WeakMap<Socket, Map<ServerResponse, IncomingMessage>>()
  server.timeout = limitMillis
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    const open = requests.get(socket) ?? new Map<ServerResponse, IncomingMessage>()
    requests.set(socket, open.set(response, request))
    response.once("close", () => open.delete(response))
  })
  // With a listener here, Node leaves the socket open on its timeout: closing it is this one's call.
  server.on("timeout", (socket: Socket) => {
    const answering = [...(requests.get(socket) ?? [])].some(([response, request]) => request.complete && !response.headersSent)
    if (answering) socket.setTimeout(limitMillis)
    else socket.destroy()
  })
}
