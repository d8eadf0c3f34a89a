import { Cause, Effect, Option } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { HostConfig } from "./Config.js"

/** The last error of a chain of causes: the driver's or the system's own words. */
const rootMessage = (error: unknown): string => {
  let current = error
  for (let depth = 0; depth < 10 && current instanceof Error && current.cause !== undefined; depth++) current = current.cause
  return current instanceof Error ? current.message : String(current)
}

/** An Effect error's tag. */
const tagOf = (error: unknown): unknown => (typeof error === "object" && error !== null && "_tag" in error ? error._tag : undefined)

/**
 * One line naming the variable behind a start that failed on the outside world (a database
 * that cannot be opened or reached, an address that cannot be listened on, a bootstrap key
 * another organization holds, a bootstrap slug that picks none of several organizations), for the operator;
 * none for anything else, which is a bug and keeps its trace.
 */
export const describeStartupFailure = (cause: Cause.Cause<unknown>, config: HostConfig): Option.Option<string> => {
  for (const error of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    switch (tagOf(error)) {
      case "SqlError":
        return Option.some(`cannot start: DATABASE_URL: the database cannot be used (${rootMessage(error)})`)
      case "MigrationError":
        // The database refused a migration (a login role that may not create the app role, a
        // full disk): the operator's to fix, and the migrator's trace does not even say why.
        if (error instanceof Error && tagOf(error.cause) === "SqlError") {
          return Option.some(`cannot start: DATABASE_URL: the database refused the migrations (${error.message}: ${rootMessage(error)})`)
        }
        break
      case "MigrationsNotRecorded":
        return Option.some(`cannot start: DATABASE_URL: the database refused the migrations (${error instanceof Error ? error.message : "not recorded"})`)
      case "ConnectTimeout":
        return Option.some(`cannot start: DATABASE_URL: ${error instanceof Error ? error.message : "Postgres did not answer"}`)
      case "DatabaseTooNew":
        return Option.some(`cannot start: DATABASE_URL: ${error instanceof Error ? error.message : "the database is newer than this version"}`)
      case "BootstrapKeyElsewhere":
        return Option.some(`cannot start: CATALOG_BOOTSTRAP_API_KEY: ${error instanceof Error ? error.message : "the key belongs to another organization"}`)
      case "AmbiguousBootstrapOrganization":
        return Option.some(`cannot start: CATALOG_BOOTSTRAP_ORG_SLUG: ${error instanceof Error ? error.message : "several organizations and none with the slug"}`)
      case "ServeError":
        return Option.some(`cannot start: HOST, PORT: cannot listen on ${config.host}:${config.port} (${rootMessage(error)})`)
    }
  }
  return Option.none()
}

/** The blob store's folder, made at start so that an unusable `CATALOG_DATA_DIR` stops it instead of failing uploads. */
export const ensureDataDir = (dataDir: string) =>
  Effect.try({
    try: () => mkdirSync(join(dataDir, "blobs"), { recursive: true }),
    catch: (error) => `cannot start: CATALOG_DATA_DIR: cannot use ${dataDir} (${rootMessage(error)})`
  })
