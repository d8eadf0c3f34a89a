import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Logger, LogLevel } from "effect"
import { createServer } from "node:http"
import { loadConfig } from "./Config.js"
import { server } from "./Server.js"

const LOG_LEVELS = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal
} as const

const main = Effect.gen(function*() {
  const config = yield* loadConfig
  const http = NodeHttpServer.layer(createServer, { port: config.port, host: config.host })
  return yield* Layer.launch(server(config).pipe(HttpServer.withLogAddress, Layer.provide(http))).pipe(
    Logger.withMinimumLogLevel(LOG_LEVELS[config.logLevel])
  )
}).pipe(
  Effect.catchAll((line) => Console.error(line).pipe(Effect.zipRight(Effect.sync(() => { process.exitCode = 1 }))))
)

// SIGINT/SIGTERM interrupt the main fiber: the server stops accepting, in-flight requests
// finish, and the database pool closes as the layers are released.
NodeRuntime.runMain(main)
