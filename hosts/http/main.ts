import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Cause, Console, Effect, Exit, Fiber, Layer, Logger, LogLevel, Option } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { constants } from "node:os"
import { loadConfig } from "./Config.js"
import { envelope } from "./Errors.js"
import { makeInFlight } from "./InFlight.js"
import { makeNodeServer } from "./NodeServer.js"
import { server } from "./Server.js"
import { describeStartupFailure, ensureDataDir } from "./Startup.js"

const LOG_LEVELS = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal
} as const

/** How long a shutdown waits for requests in flight before it closes anyway. */
const DRAIN_LIMIT = "25 seconds"

const nodeServer = makeNodeServer()
const inFlight = makeInFlight()

// The socket listens before migrations and the handlers are ready; a request that arrived in
// between would hang for good. Until the real handler attaches, answer 503.
const starting = (_: IncomingMessage, response: ServerResponse) => {
  response.writeHead(503, { "content-type": "application/json", connection: "close" })
  response.end(JSON.stringify(envelope("unavailable", "the service is starting")))
}
const attached = (event: string | symbol) => {
  if (event !== "request") return
  nodeServer.off("request", starting)
  nodeServer.off("newListener", attached)
}
// Once stopping, every answer not yet begun closes its connection (`Connection: close`): a
// client that kept the connection open would otherwise send its next request on it, and the
// drain, which ends as soon as nothing is in flight, would cut that request unanswered.
// Added before `starting`, since adding any later request listener takes `starting` away.
let stopping = false
const unanswered = new Set<ServerResponse>()
const closing = (response: ServerResponse) => {
  if (!response.headersSent) response.shouldKeepAlive = false
}
nodeServer.on("request", (_: IncomingMessage, response: ServerResponse) => {
  if (stopping) return closing(response)
  unanswered.add(response)
  response.once("close", () => unanswered.delete(response))
})
nodeServer.on("request", starting)
nodeServer.on("newListener", attached)

/** Stops start-up with one line for the operator. */
const refuse = (line: string) => Console.error(line).pipe(Effect.zipRight(Effect.sync(() => { process.exitCode = 1 })))

const main = Effect.gen(function*() {
  const config = yield* loadConfig
  yield* ensureDataDir(config.dataDir)
  const http = NodeHttpServer.layer(() => nodeServer, { port: config.port, host: config.host })
  return yield* Layer.launch(server(config, inFlight.track).pipe(HttpServer.withLogAddress, Layer.provide(http))).pipe(
    Logger.withMinimumLogLevel(LOG_LEVELS[config.logLevel]),
    // A database that cannot be reached or an address already taken is the operator's to fix:
    // say which variable in one line. Anything else keeps its trace (printed below).
    Effect.catchAllCause((cause) =>
      Option.match(describeStartupFailure(cause, config), { onNone: () => Effect.failCause(cause), onSome: refuse })
    )
  )
}).pipe(Effect.catchIf((e): e is string => typeof e === "string", refuse))

const fiber = Effect.runFork(main)

// SIGTERM/SIGINT: stop accepting connections, let requests in flight finish, then release
// the layers, which closes the database. A second signal stops at once: it cuts every
// connection and interrupts everything, and exits after FORCE_LIMIT_MS whatever is still
// running (a query the database has not answered cannot be interrupted, nor waited for).
const FORCE_LIMIT_MS = 500
const shutdown = (signal: NodeJS.Signals) => {
  if (stopping) {
    process.exitCode = 128 + (constants.signals[signal] ?? 0)
    nodeServer.closeAllConnections()
    setTimeout(() => process.exit(), FORCE_LIMIT_MS).unref()
    return Effect.runFork(Fiber.interrupt(fiber))
  }
  stopping = true
  unanswered.forEach(closing)
  nodeServer.close()
  nodeServer.closeIdleConnections()
  return Effect.runFork(inFlight.drained(DRAIN_LIMIT).pipe(Effect.zipRight(Fiber.interrupt(fiber))))
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

Effect.runFork(
  Fiber.await(fiber).pipe(
    Effect.flatMap((exit) =>
      Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
        ? Console.error(Cause.pretty(exit.cause)).pipe(Effect.zipRight(Effect.sync(() => { process.exitCode = 1 })))
        : Effect.void
    ),
    Effect.zipRight(Effect.sync(() => {
      process.off("SIGTERM", shutdown)
      process.off("SIGINT", shutdown)
      nodeServer.closeAllConnections()
    }))
  )
)
