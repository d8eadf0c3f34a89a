import { SqlClient } from "@effect/sql"
import { Array, Effect, Layer, Option, Schema } from "effect"
import { Conflict } from "../../core/shared/Errors.js"
import { Billing, Organization, OrganizationSettings } from "../../core/tenancy/Organization.js"
import { OrganizationRepository, type SoleOrganization } from "../../core/tenancy/OrganizationRepository.js"
import { IntColumn, JsonColumn, toJson } from "./Columns.js"
import { snakeToCamel } from "./NameCase.js"
import { isUniqueViolation } from "./SqlErrors.js"
import { exportOrder, exportRow } from "./TenantExport.js"
import { TENANT_TABLES } from "./TenantTables.js"

const Row = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  settings: Schema.NullOr(JsonColumn(OrganizationSettings)),
  billing: Schema.NullOr(JsonColumn(Billing)),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const CountRow = Schema.Struct({ n: IntColumn })

const toOrganization = (row: typeof Row.Type) =>
  new Organization({
    id: row.id,
    name: row.name,
    slug: row.slug,
    settings: row.settings,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  })

const slugTaken = (slug: string) => new Conflict({ message: `organization slug ${slug} is taken` })

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const dialect = sql.onDialectOrElse({ pg: () => "pg" as const, orElse: () => "sqlite" as const })
  const one = (rows: ReadonlyArray<unknown>) =>
    decodeRows(rows).pipe(Effect.orDie, Effect.map(Array.head))

  return OrganizationRepository.of({
    insert: (o) =>
      sql`insert into organizations ${
        sql.insert({
          id: o.id,
          name: o.name,
          slug: o.slug,
          settings: o.settings === null ? null : toJson(o.settings),
          createdAt: o.createdAt,
          updatedAt: o.updatedAt
        })
      }`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", (e) => (isUniqueViolation(e) ? Effect.fail(slugTaken(o.slug)) : Effect.die(e)))
      ),
    findById: (id) =>
      sql`select * from organizations where id = ${id}`.pipe(
        Effect.orDie,
        Effect.flatMap(one),
        Effect.map(Option.map((row) => ({ organization: toOrganization(row), billing: row.billing })))
      ),
    findBySlug: (slug) =>
      sql`select * from organizations where slug = ${slug}`.pipe(
        Effect.orDie,
        Effect.flatMap(one),
        Effect.map(Option.map(toOrganization))
      ),
    sole: sql`select * from organizations limit 2`.pipe(
      Effect.flatMap(decodeRows),
      Effect.orDie,
      Effect.map(([first, second]): SoleOrganization =>
        first === undefined ? { _tag: "None" } : second === undefined ? { _tag: "Sole", organization: toOrganization(first) } : { _tag: "Several" }
      )
    ),
    update: (id, changes) => {
      const set: Record<string, unknown> = { updatedAt: changes.updatedAt }
      if (changes.name !== undefined) set["name"] = changes.name
      if (changes.slug !== undefined) set["slug"] = changes.slug
      if (changes.settings !== undefined) set["settings"] = changes.settings === null ? null : toJson(changes.settings)
      return sql`update organizations set ${sql.update(set)} where id = ${id} returning *`.pipe(
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e) ? Effect.fail(slugTaken(changes.slug ?? "")) : Effect.die(e)
        ),
        Effect.flatMap(one),
        Effect.map(Option.map(toOrganization))
      )
    },
    // Postgres: every insert of a row referencing the organization waits for this row lock,
    // and it waits for those already made. SQLite runs one write transaction at a time.
    holdForDeletion: (id) =>
      sql.onDialectOrElse({
        pg: () => sql`select id from organizations where id = ${id} for update`,
        orElse: () => sql`select id from organizations where id = ${id}`
      }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
    exportTenant: (id) =>
      Effect.gen(function*() {
        const tables: Record<string, ReadonlyArray<unknown>> = {}
        for (const table of TENANT_TABLES) {
          const rows = yield* sql<Record<string, unknown>>`select * from ${sql(table)} where organization_id = ${id} order by ${
            sql.literal(exportOrder(table, dialect))
          }`
          tables[table] = rows.map((row) => exportRow(table, row))
        }
        return tables
      }).pipe(Effect.orDie),
    deleteCascade: (id) =>
      Effect.gen(function*() {
        const counts: Record<string, number> = {}
        for (const table of TENANT_TABLES) {
          const rows = yield* sql`select count(*) as n from ${sql(table)} where organization_id = ${id}`
          const [row] = yield* Schema.decodeUnknown(Schema.Array(CountRow))(rows)
          // Keyed as the API names things, in camelCase (`contentPages`), not as the tables are.
          counts[snakeToCamel(table)] = row?.n ?? 0
        }
        // Foreign keys cascade from the organization; the outbox has none and goes explicitly,
        // after the cascade has waited for the writes still changing the organization's rows.
        const deleted = yield* sql`delete from organizations where id = ${id} returning id`
        yield* sql`delete from events where organization_id = ${id}`
        counts["organizations"] = deleted.length
        return counts
      }).pipe(Effect.orDie)
  })
})

export const layer = Layer.effect(OrganizationRepository, make)
