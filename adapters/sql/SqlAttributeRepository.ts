import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { AttributeGroup, EntityKind, Requirement, ValidationRules } from "../../core/schema/Attribute.js"
import type { AttributeRecord } from "../../core/schema/Attribute.js"
import { AttributeRepository } from "../../core/schema/AttributeRepository.js"
import { AttributeType } from "../../core/schema/AttributeValues.js"
import { Conflict } from "../../core/shared/Errors.js"
import { LocalizedLabel } from "../../core/shared/Fields.js"
import { BooleanColumn, IntColumn, JsonColumn, toBool, toJson } from "./Columns.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { storedRecords } from "./StoredRecords.js"

const GroupRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  code: Schema.String,
  label: JsonColumn(LocalizedLabel),
  position: IntColumn,
  createdAt: Schema.String,
  updatedAt: Schema.String
})

const Row = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  code: Schema.String,
  entityKind: EntityKind,
  label: JsonColumn(LocalizedLabel),
  type: AttributeType,
  groupId: Schema.NullOr(Schema.String),
  isLocalizable: BooleanColumn,
  isScopable: BooleanColumn,
  requirement: Requirement,
  isVariantAxis: BooleanColumn,
  validation: Schema.NullOr(JsonColumn(ValidationRules)),
  // Wrapped as {value}: a bare JSON string would be ambiguous with SQLite's text (is "12" a number?).
  defaultValue: Schema.NullOr(JsonColumn(Schema.Struct({ value: Schema.Unknown }))),
  position: IntColumn,
  createdBy: Schema.NullOr(Schema.String),
  updatedBy: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const Stored = Schema.transform(Row, Schema.typeSchema(Schema.Struct({ ...Row.fields, defaultValue: Schema.Unknown })), {
  strict: false,
  decode: (row) => ({ ...row, defaultValue: row.defaultValue === null ? null : row.defaultValue.value ?? null }),
  encode: (record) => record
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Stored))

const toColumns = (a: Partial<AttributeRecord>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(a)) {
    if (value === undefined) continue
    if (key === "label") out[key] = toJson(value)
    else if (key === "validation") out[key] = value === null ? null : toJson(value)
    else if (key === "defaultValue") out[key] = value === null ? null : toJson({ value })
    else if (typeof value === "boolean") out[key] = toBool(value)
    else out[key] = value
  }
  return out
}

const codeTaken = (a: { readonly code?: string | undefined }) =>
  new Conflict({ message: `an attribute with code ${a.code ?? ""} already exists for this entity kind` })

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const all = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<AttributeRecord>> => Effect.orDie(decodeRows(rows))
  const first = (rows: ReadonlyArray<unknown>) => Effect.map(all(rows), Array.head)
  const groups = storedRecords(GroupRow, AttributeGroup)

  const findByCode = (organizationId: string, entityKind: EntityKind, code: string) =>
    sql`select * from attributes where organization_id = ${organizationId} and entity_kind = ${entityKind} and code = ${code}`.pipe(
      Effect.orDie,
      Effect.flatMap(first)
    )

  return AttributeRepository.of({
    insertGroup: (g) =>
      sql`insert into attribute_groups ${sql.insert({ ...g, label: toJson(g.label) })}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e) ? Effect.fail(new Conflict({ message: `an attribute group with code ${g.code} already exists` })) : Effect.die(e)
        )
      ),
    listGroups: (organizationId) =>
      sql`select * from attribute_groups where organization_id = ${organizationId} order by position, code`.pipe(
        Effect.orDie,
        Effect.flatMap(groups)
      ),
    findGroup: (organizationId, id) =>
      sql`select * from attribute_groups where organization_id = ${organizationId} and id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(groups),
        Effect.map(Array.head)
      ),
    insert: (a) =>
      sql`insert into attributes ${sql.insert(toColumns(a))}`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(codeTaken(a)) : Effect.die(e)))
      ),
    insertIfAbsent: (a) =>
      Effect.gen(function*() {
        const inserted = yield* sql`insert into attributes ${sql.insert(toColumns(a))}
          on conflict (organization_id, entity_kind, code) do nothing returning id`
        const stored = yield* findByCode(a.organizationId, a.entityKind, a.code)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`attribute ${a.code} vanished while provisioning`)
        return { attribute: stored.value, inserted: inserted.length > 0 }
      }).pipe(Effect.orDie),
    list: (organizationId, entityKind) =>
      sql`select * from attributes where organization_id = ${organizationId} and entity_kind = ${entityKind}
          order by position, code`.pipe(Effect.orDie, Effect.flatMap(all)),
    findById: (organizationId, id) =>
      sql`select * from attributes where organization_id = ${organizationId} and id = ${id}`.pipe(Effect.orDie, Effect.flatMap(first)),
    update: (organizationId, id, changes) =>
      sql`update attributes set ${sql.update(toColumns(changes))}
          where organization_id = ${organizationId} and id = ${id} returning *`.pipe(
        Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(codeTaken(changes)) : Effect.die(e))),
        Effect.flatMap(first)
      ),
    delete: (organizationId, id) =>
      sql`delete from attributes where organization_id = ${organizationId} and id = ${id} returning id`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.length > 0)
      )
  })
})

export const layer = Layer.effect(AttributeRepository, make)
