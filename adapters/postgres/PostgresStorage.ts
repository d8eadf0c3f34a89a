import { PgClient } from "@effect/sql-pg"
import { Layer, Redacted } from "effect"
import { camelToSnake, snakeToCamel } from "../sql/NameCase.js"
import * as SqlStorage from "../sql/SqlStorage.js"
import { keepTablesMaintained } from "./PostgresUpkeep.js"

/** A pooled Postgres client. JSON columns keep their keys as written. */
export const client = (url: string, maxConnections = 10) =>
  PgClient.layer({
    url: Redacted.make(url),
    maxConnections,
    transformQueryNames: camelToSnake,
    transformResultNames: snakeToCamel,
    transformJson: false,
    applicationName: "catalog-service"
  })

/** Every storage port on Postgres, migrated, its tables vacuumed and analyzed as they change. */
export const layer = (url: string, maxConnections?: number) =>
  keepTablesMaintained().pipe(Layer.provideMerge(SqlStorage.fromClient(client(url, maxConnections))))
