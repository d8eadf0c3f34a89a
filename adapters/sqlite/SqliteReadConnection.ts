import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { ReadConnection } from "../sql/ReadConnection.js"

/**
 * A read-only connection to the file, opened at the first read (after the migrations have
 * made the file) and closed with the layer. WAL mode lets it read while the other connection
 * writes; it sees each commit from its next statement on.
 */
export const layer = (filename: string) =>
  Layer.scoped(
    ReadConnection,
    Effect.gen(function*() {
      let db: Database.Database | undefined
      const statements = new Map<string, Database.Statement>()
      yield* Effect.addFinalizer(() => Effect.sync(() => db?.close()))
      const open = () => {
        db = new Database(filename, { readonly: true, fileMustExist: true })
        db.pragma("busy_timeout = 5000")
        db.pragma("mmap_size = 1073741824")
        db.pragma("cache_size = -65536")
        return db
      }
      const prepared = (statement: string) => {
        let s = statements.get(statement)
        if (s === undefined) {
          s = (db ?? open()).prepare(statement)
          statements.set(statement, s)
        }
        return s
      }
      return ReadConnection.of({
        first: (statement, params) => Effect.try(() => prepared(statement).get(...params)).pipe(Effect.orDie)
      })
    })
  )
