import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Array, Effect, Layer, Schema } from "effect"
import { Modifier, ModifierOption, ModifierType } from "../../core/modifiers/Modifier.js"
import { ModifierRepository } from "../../core/modifiers/ModifierRepository.js"
import { Conflict } from "../../core/shared/Errors.js"
import { JsonColumn, toJson } from "./Columns.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  code: Schema.String,
  name: Schema.String,
  type: ModifierType,
  options: JsonColumn(Schema.Array(ModifierOption)),
  createdAt: Schema.String,
  updatedAt: Schema.String
})

const codeTaken = (m: Modifier) => (e: SqlError): Effect.Effect<never, Conflict> =>
  isUniqueViolation(e) ? Effect.fail(new Conflict({ message: `modifier code ${m.code} is taken` })) : Effect.die(e)

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = storedRecords(Row, Modifier)

  return ModifierRepository.of({
    insert: (m) =>
      sql`insert into modifiers ${sql.insert({ ...m, options: toJson(m.options) })}`.pipe(Effect.asVoid, Effect.catchTag("SqlError", codeTaken(m))),
    list: (organizationId) =>
      sql`select * from modifiers where organization_id = ${organizationId} order by code`.pipe(Effect.orDie, Effect.flatMap(all)),
    findById: (organizationId, id) =>
      sql`select * from modifiers where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(all),
        Effect.map(Array.head)
      ),
    update: (m) =>
      sql`update modifiers set code = ${m.code}, name = ${m.name}, type = ${m.type}, options = ${toJson(m.options)}, updated_at = ${m.updatedAt}
          where organization_id = ${m.organizationId} and id = ${m.id}`.pipe(Effect.asVoid, Effect.catchTag("SqlError", codeTaken(m))),
    remove: (organizationId, id) =>
      sql`delete from modifiers where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )
  })
})

export const layer = Layer.effect(ModifierRepository, make)
