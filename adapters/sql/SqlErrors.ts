import type { SqlError } from "@effect/sql/SqlError"

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
