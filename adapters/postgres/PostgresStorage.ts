import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Redacted, Schema } from "effect"
import { camelToSnake, snakeToCamel } from "../sql/NameCase.js"
import * as SqlStorage from "../sql/SqlStorage.js"
import { keepTablesMaintained } from "./PostgresUpkeep.js"

/** How long start-up waits for Postgres to answer a first connection. */
export const CONNECT_TIMEOUT: Duration.DurationInput = "10 seconds"

/** Postgres did not answer a first connection in time: an address that drops packets, a server that accepts and says nothing. */
export class ConnectTimeout extends Schema.TaggedError<ConnectTimeout>()("ConnectTimeout", {
  /** `host:port` of the URL; never its credentials. */
  server: Schema.String,
  millis: Schema.Number
}) {
  override get message(): string {
    return `Postgres at ${this.server} did not answer within ${this.millis / 1000} s`
  }
}

const serverOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}`
  } catch {
    return "the configured address"
  }
}

/**
 * Succeeds once Postgres answers a connection, fails with ConnectTimeout after `timeout`. The
 * client's own first query cannot be interrupted once sent, so a server that took the
 * connection and said nothing held start-up for good. This probe's pool drops its socket a
 * second after the timeout, and start-up does not wait for that.
 */
const answers = (url: string, timeout: Duration.DurationInput) => {
  const millis = Duration.toMillis(timeout)
  const probe = PgClient.layer({
    url: Redacted.make(url),
    maxConnections: 1,
    connectTimeout: Duration.millis(millis + 1000),
    applicationName: "catalog-service"
  })
  return Effect.scoped(Layer.build(probe)).pipe(
    Effect.asVoid,
    Effect.disconnect,
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new ConnectTimeout({ server: serverOf(url), millis }) })
  )
}

/**
 * A pooled Postgres client, once the server has answered within `connectTimeout`. JSON
 * columns keep their keys as written.
 */
export const client = (url: string, maxConnections = 10, connectTimeout: Duration.DurationInput = CONNECT_TIMEOUT) =>
  Layer.unwrapEffect(Effect.as(
    answers(url, connectTimeout),
    PgClient.layer({
      url: Redacted.make(url),
      maxConnections,
      // After start-up too: without it a new connection to a server that does not answer waits for good.
      connectTimeout,
      transformQueryNames: camelToSnake,
      transformResultNames: snakeToCamel,
      transformJson: false,
      applicationName: "catalog-service"
    })
  ))

/**
 * Every storage port on Postgres, migrated, its tables vacuumed and analyzed as they change.
 * Fails with ConnectTimeout when the server does not answer within `connectTimeout`, and with
 * SqlError when it refuses.
 */
export const layer = (url: string, maxConnections?: number, connectTimeout?: Duration.DurationInput) =>
  keepTablesMaintained().pipe(Layer.provideMerge(SqlStorage.fromClient(client(url, maxConnections, connectTimeout))))
