import type { SqlError } from "@effect/sql/SqlError"
import { Schedule } from "effect"

/**
 * True when running the whole transaction again may succeed where this run failed: Postgres
 * aborted it so that another could go on (a deadlock, 40P01, or a serialization conflict,
 * 40001), or a row it had checked was deleted before it wrote a reference to it (a foreign
 * key, 23503), which the checks of the next run will see.
 */
export const isWorthRunningAgain = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown } | undefined
  return cause?.code === "40P01" || cause?.code === "40001" || cause?.code === "23503"
}

/** True when another process kept a SQLite file's write lock (past the busy timeout, or at once when the transaction had read first). */
export const isLockedElsewhere = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown } | undefined
  return typeof cause?.code === "string" && cause.code.startsWith("SQLITE_BUSY")
}

// Postgres: a connection exception (class 08), the server shutting down or starting (57P01 to
// 57P03), or out of connections (53300); node's socket errors; pg's own words when a
// connection does not come in time or drops. SQLite: the file stayed locked past the busy
// timeout.
const UNREACHABLE_CODES = new Set(["57P01", "57P02", "57P03", "53300", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"])
const UNREACHABLE_MESSAGE = /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Connection timed out)/
// The disk is full (SQLite, Postgres 53100) or the server is out of memory (53200).
const OUT_OF_ROOM_CODES = new Set(["SQLITE_FULL", "53100", "53200"])
// Postgres cancelled the statement: its `statement_timeout` or `lock_timeout` ran out (57014,
// 55P03), as an operator may set them on the role or the database.
const TOO_SLOW_CODES = new Set(["57014", "55P03"])

/**
 * Why the database could not do what was asked, when it may once it is back, has room again
 * or is less busy: no fault of the statement. `undefined` for every other error.
 */
export const unavailableReason = (error: SqlError): string | undefined => {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  const message = typeof cause?.message === "string" ? cause.message : ""
  if (UNREACHABLE_CODES.has(code) || code.startsWith("08") || UNREACHABLE_MESSAGE.test(message) || isLockedElsewhere(error)) {
    return "the database does not answer"
  }
  if (OUT_OF_ROOM_CODES.has(code)) return "the database has no room left to write"
  if (TOO_SLOW_CODES.has(code)) return "the database did not answer in time"
  return undefined
}

/**
 * How a write waits for another process's SQLite lock: run again every 50 ms, for at most 5 s.
 * SQLite refuses a transaction that read first at once, and waits for one that writes first
 * only by sleeping in the call, which would hold the event loop.
 */
export const untilUnlocked = Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds"))

/** True when the database refused the write for a UNIQUE constraint (SQLite or Postgres). */
export const isUniqueViolation = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY"
}

/** True when a foreign key refused the write. */
export const isForeignKeyViolation = (error: SqlError): boolean => {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  // SQLite reports ON DELETE RESTRICT through its trigger machinery, with the foreign key named in the message.
  const restrict = code === "SQLITE_CONSTRAINT_TRIGGER" && typeof cause?.message === "string" && cause.message.includes("FOREIGN KEY")
  return code === "23503" || code === "SQLITE_CONSTRAINT_FOREIGNKEY" || restrict
}

/**
 * True when the write broke the unnamed UNIQUE constraint of `table` on `columns`, as the
 * database names it: Postgres by the constraint's default name (`variants_organization_id_sku_key`;
 * its detail, which lists the columns, is left out under row-level security), SQLite in its
 * message (`UNIQUE constraint failed: variants.organization_id, variants.sku`).
 */
export const isUniqueViolationOn = (error: SqlError, table: string, columns: ReadonlyArray<string>): boolean => {
  const cause = error.cause as { constraint?: unknown; message?: unknown } | undefined
  return cause?.constraint === `${table}_${columns.join("_")}_key` ||
    cause?.message === `UNIQUE constraint failed: ${columns.map((column) => `${table}.${column}`).join(", ")}`
}
