import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  readonly text: string
}

/** How the receiver answers a path: a status, headers, a body, after a delay. */
export interface Answer {
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  readonly delayMs?: number
  /** Answers once this settles. */
  readonly until?: Promise<void>
  /** Sends the status and headers, then never the body. */
  readonly stall?: boolean
}

export interface Receiver {
  readonly port: number
  readonly url: (path?: string) => string
  readonly received: ReadonlyArray<Received>
  readonly answer: (path: string, answer: Answer) => void
  /** Resolves with the first request matching `predicate`; rejects after `timeoutMs`. */
  readonly waitFor: (predicate: (r: Received) => boolean, timeoutMs?: number) => Promise<Received>
  readonly close: () => Promise<void>
}

/** A real HTTP server on 127.0.0.1 that records every webhook it gets. */
export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const answers = new Map<string, Answer>()
  const waiters = new Set<() => void>()
  const respond = (res: ServerResponse, answer: Answer) => {
    res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers })
    if (answer.stall === true) res.write("{")
    else res.end(answer.body ?? "{\"received\":true}")
  }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const path = (req.url ?? "").split("?")[0] ?? ""
      received.push({ method: req.method ?? "", path, headers: req.headers, body, text: body.toString("utf8") })
      for (const w of [...waiters]) w()
      const answer = answers.get(path) ?? {}
      if (answer.until !== undefined) void answer.until.then(() => respond(res, answer))
      else if (answer.delayMs !== undefined) setTimeout(() => respond(res, answer), answer.delayMs)
      else respond(res, answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("receiver: no TCP address")
  const port = address.port
  return {
    port,
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (path, answer) => answers.set(path, answer),
    waitFor: (predicate, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(predicate)
          if (hit === undefined) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(hit)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`receiver: nothing matched within ${timeoutMs} ms; got ${received.map((r) => r.headers["x-service-event"]).join(", ")}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
