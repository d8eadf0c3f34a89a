import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import type { EntityKind } from "../../core/schema/Attribute.js"
import { AttributeValueStore, noUsage, type Usage, type ValueScope } from "../../core/schema/AttributeValueStore.js"
import { type AttributeValueTable, ATTRIBUTE_VALUE_TABLES } from "./AttributeValueTables.js"
import { IntColumn } from "./Columns.js"
import { refreshProductIndex } from "./ProductIndexRefresh.js"

const CountRow = Schema.Struct({ n: IntColumn })
const decodeCount = Schema.decodeUnknown(Schema.Array(CountRow))
const IdRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String })))

// Codes match ^[a-z][a-z0-9_]*$ (checked on write), so they are safe inside a JSON path.
const CODE = /^[a-z][a-z0-9_]*$/

/** The attribute value store over `tables` (the registry, or the registry plus a test's own table). */
export const make = (tables: ReadonlyArray<AttributeValueTable>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const holds = (code: string) =>
      sql.onDialectOrElse({
        pg: () => sql`jsonb_exists(attributes, ${code})`,
        orElse: () => sql`json_type(attributes, '$.' || ${code}) is not null`
      })

    // Codes and scopes are bound as parameters; a value that is not an array of entries holds none.
    const holdsScoped = (code: string, scope: ValueScope) =>
      sql.onDialectOrElse({
        pg: () =>
          sql`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(attributes -> ${code}::text) = 'array'
                then attributes -> ${code}::text else '[]'::jsonb end) as e(entry)
              where jsonb_typeof(e.entry) = 'object' and e.entry ->> ${scope}::text is not null)`,
        orElse: () =>
          sql`exists (select 1 from json_each(attributes, '$.' || ${code}) as e
              where json_type(attributes, '$.' || ${code}) = 'array' and e.type = 'object'
                and json_extract(e.value, '$.' || ${scope}) is not null)`
      })

    const perTable = (
      entityKind: EntityKind,
      codes: ReadonlyArray<string>,
      count: (table: AttributeValueTable) => Effect.Effect<number, unknown>
    ): Effect.Effect<Usage> =>
      Effect.gen(function*() {
        for (const code of codes) if (!CODE.test(code)) return yield* Effect.dieMessage(`not an attribute code: ${code}`)
        const usage: Record<keyof Usage, number> = { ...noUsage }
        for (const table of tables) {
          if (table.entityKind === entityKind) usage[table.usageKey] += yield* count(table)
        }
        return usage
      }).pipe(Effect.orDie)

    return AttributeValueStore.of({
      usage: (organizationId, entityKind, code) =>
        perTable(entityKind, [code], ({ table }) =>
          sql`select cast(count(*) as integer) as n from ${sql(table)}
              where organization_id = ${organizationId} and ${holds(code)}`.pipe(
            Effect.flatMap(decodeCount),
            Effect.map((rows) => rows[0]?.n ?? 0)
          )),
      scopedUsage: (organizationId, entityKind, code, scope) =>
        perTable(entityKind, [code], ({ table }) =>
          sql`select cast(count(*) as integer) as n from ${sql(table)}
              where organization_id = ${organizationId} and ${holdsScoped(code, scope)}`.pipe(
            Effect.flatMap(decodeCount),
            Effect.map((rows) => rows[0]?.n ?? 0)
          )),
      // Postgres: the rows in id order, as a brand's or category's deletion holds its products
      // (see `holdProducts`). SQLite writes one transaction at a time.
      hold: (organizationId, entityKind, code) =>
        sql.onDialectOrElse({
          pg: () =>
            Effect.asVoid(perTable(entityKind, [code], ({ table }) =>
              Effect.as(
                sql`select id from ${sql(table)} where organization_id = ${organizationId} and ${holds(code)} order by id for no key update`,
                0
              ))),
          orElse: () => Effect.void
        }),
      remove: (organizationId, entityKind, code, at) =>
        perTable(entityKind, [code], ({ table }) => {
          const without = sql.onDialectOrElse({
            pg: () => sql`attributes - ${code}::text`,
            orElse: () => sql`json_remove(attributes, '$.' || ${code})`
          })
          return sql`update ${sql(table)} set attributes = ${without}, updated_at = ${at}
                     where organization_id = ${organizationId} and ${holds(code)} returning id`.pipe(
            Effect.flatMap(IdRows),
            // A product's search text holds its text values: the removed ones must stop matching.
            Effect.tap((rows) => (table === "products" ? refreshProductIndex(sql, organizationId, rows.map((r) => r.id)) : Effect.void)),
            Effect.map((rows) => rows.length)
          )
        }),
      rename: (organizationId, entityKind, from, to, at) =>
        perTable(entityKind, [from, to], ({ table }) => {
          const moved = sql.onDialectOrElse({
            pg: () => sql`(attributes - ${from}::text) || jsonb_build_object(${to}::text, attributes -> ${from}::text)`,
            orElse: () => sql`json_set(json_remove(attributes, '$.' || ${from}), '$.' || ${to}, json(json_extract(attributes, '$.' || ${from})))`
          })
          return sql`update ${sql(table)} set attributes = ${moved}, updated_at = ${at}
                     where organization_id = ${organizationId} and ${holds(from)} returning 1 as n`.pipe(Effect.map((rows) => rows.length))
        })
    })
  })

export const layerWith = (tables: ReadonlyArray<AttributeValueTable>) => Layer.effect(AttributeValueStore, make(tables))

export const layer = layerWith(ATTRIBUTE_VALUE_TABLES)
