import { createConnection, createServer, type Server, type Socket } from "node:net"

/**
 * A TCP proxy in front of a server, for tests of what a client does when that server goes away:
 * `forward` passes connections through, `reset` drops the open ones and resets each new one
 * (a server gone or restarting), `silent` takes new ones and never answers (a network that
 * lost its packets).
 */
export interface TcpProxy {
  readonly port: number
  readonly mode: (mode: "forward" | "reset" | "silent") => void
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  let mode: "forward" | "reset" | "silent" = "forward"
  const open = new Set<Socket>()
  const track = (socket: Socket) => {
    open.add(socket)
    socket.on("close", () => open.delete(socket))
    socket.on("error", () => socket.destroy())
  }
  const server: Server = createServer((client) => {
    track(client)
    if (mode === "reset") return void client.resetAndDestroy()
    if (mode === "silent") return
    const upstream = createConnection(target)
    track(upstream)
    client.pipe(upstream).pipe(client)
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  return {
    port: address.port,
    mode: (next) => {
      mode = next
      if (next !== "forward") for (const socket of open) socket.destroy()
    },
    close: async () => {
      for (const socket of open) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
