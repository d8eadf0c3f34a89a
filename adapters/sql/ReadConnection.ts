import { Context, type Effect } from "effect"

/**
 * The first row of a statement (`?` placeholders), read straight through the driver on a
 * connection of its own: committed state only, outside every transaction. A point read costs
 * a fraction of a statement through the shared client, which serializes every statement of
 * the process behind its one connection. Only a SQLite file has one: a second connection to
 * `:memory:` would be another database, and Postgres reads run in the tenant's transaction
 * for row-level security.
 */
export class ReadConnection extends Context.Tag("catalog/sql/ReadConnection")<ReadConnection, {
  readonly first: (statement: string, params: ReadonlyArray<string>) => Effect.Effect<unknown>
}>() {}
