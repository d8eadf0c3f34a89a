import { SqlClient } from "@effect/sql"
import { assert, describe, expect, layer } from "@effect/vitest"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Data, Effect, Exit, Schema, Stream } from "effect"
import { auditPage } from "../adapters/sql/AuditQuery.js"
import { APP_ROLE, CURRENT_ORG } from "../adapters/sql/Rls.js"
import * as SqlStorage from "../adapters/sql/SqlStorage.js"
import { snakeToCamel } from "../adapters/sql/NameCase.js"
import { EXPORT_COLUMNS } from "../adapters/sql/TenantExport.js"
import { TENANT_TABLES } from "../adapters/sql/TenantTables.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { postgresAvailable, postgresClient, postgresStorage } from "./support/Postgres.js"
import { Brands } from "../core/catalog/Brands.js"
import type { AuditFilter } from "../core/events/AuditEntry.js"
import { Categories } from "../core/catalog/Categories.js"
import { Connectors } from "../core/connectors/Connectors.js"
import { ContentPages } from "../core/content/ContentPages.js"
import type { UploadPart } from "../core/media/Media.js"
import { MediaLibrary } from "../core/media/MediaLibrary.js"
import { Modifiers } from "../core/modifiers/Modifiers.js"
import { ProductModifiers } from "../core/modifiers/ProductModifiers.js"
import { Products } from "../core/products/Products.js"
import { Relationships } from "../core/relationships/Relationships.js"
import { AttributeGroups } from "../core/schema/AttributeGroups.js"
import { CurrentTenant } from "../core/tenancy/Actor.js"
import { ApiKeys } from "../core/tenancy/ApiKeys.js"
import { UserRepository } from "../core/tenancy/UserRepository.js"
import { Variants } from "../core/variants/Variants.js"
import { catalogOver, newTenant } from "./support/Catalog.js"
import { attr, entry, familyWith } from "./support/Families.js"

const available = await postgresAvailable()

const Count = Schema.Array(Schema.Struct({ n: Schema.Number }))
/** Ends a transaction with a rollback, carrying what it found. */
class Undone extends Data.TaggedError("Undone")<{ readonly out: Record<string, { readonly trigram: boolean; readonly reads: string }> }> {}

/** Relations the application role reads that hold no tenant's rows, and why. */
const SHARED: Readonly<Record<string, string>> = {
  users: "one user may be a member of several organizations; the memberships, under their policy, say which"
}

const Readable = Schema.Array(Schema.Struct({
  qualified: Schema.String,
  relname: Schema.String,
  kind: Schema.String,
  forced: Schema.Boolean,
  policies: Schema.Number,
  keyed: Schema.Boolean,
  referencesOrganizations: Schema.Boolean
}))
const Security = Schema.Array(Schema.Struct({ relname: Schema.String, relrowsecurity: Schema.Boolean, relforcerowsecurity: Schema.Boolean }))
const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`select CAST(count(*) AS INTEGER) as n from ${sql(table)}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Count)),
      Effect.map((rows) => rows[0]?.n ?? -1)
    ))

const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const orgs = ["01900000-0000-7000-8000-00000000000a", "01900000-0000-7000-8000-00000000000b"]
  for (const [i, id] of orgs.entries()) {
    yield* sql`insert into organizations ${sql.insert({ id, name: `Org ${i}`, slug: `rls-${i}`, createdAt: "t", updatedAt: "t" })}`
    yield* sql`insert into api_keys ${
      sql.insert({ id: `01900000-0000-7000-8000-00000000001${i}`, organizationId: id, name: "k", prefix: "pim_xxxx", keyHash: `hash-${i}`, createdAt: "t", updatedAt: "t" })
    }`
  }
  return orgs as [string, string]
})

describe.runIf(available)("postgres row-level security", () => {
  layer(SqlStorage.fromClient(postgresClient), { timeout: 60_000 })("tenant isolation", (it) => {
    it.effect("binds the application role: no tenant setting, no rows; a tenant sees only its own", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const [a, b] = yield* seed

        // The owner (superuser in tests) sees both tenants: the data is there.
        expect(yield* count("api_keys")).toBe(2)

        // A transaction as the application role without the tenant setting sees nothing.
        const unset = yield* sql.withTransaction(
          Effect.zipRight(sql.unsafe(`SET LOCAL ROLE ${APP_ROLE}`), Effect.all([count("api_keys"), count("organizations"), count("events")]))
        )
        expect(unset).toEqual([0, 0, 0])

        // A tenant transaction sees its own rows even with no WHERE clause at all.
        expect(yield* uow.tenant(a, count("api_keys"))).toBe(1)
        expect(yield* uow.tenant(b, count("organizations"))).toBe(1)

        // After a tenant transaction the pooled connection reads the setting as '' and still fails closed.
        const after = yield* sql.withTransaction(Effect.zipRight(sql.unsafe(`SET LOCAL ROLE ${APP_ROLE}`), count("api_keys")))
        expect(after).toBe(0)

        // Writing another tenant's row from inside a tenant transaction is refused by the policy.
        const crossWrite = yield* Effect.exit(
          uow.tenant(a, sql`insert into api_keys ${sql.insert({ id: "01900000-0000-7000-8000-0000000000c1", organizationId: b, name: "x", prefix: "pim_yyyy", keyHash: "hash-x", createdAt: "t", updatedAt: "t" })}`)
        )
        assert(Exit.isFailure(crossWrite))
        const defect = Cause.squash(crossWrite.cause)
        assert(defect instanceof SqlError)
        expect(String(defect.cause)).toContain("row-level security")
      }))

    it.effect("lets the application role read products through tenant_products only in its own organization", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const orgs = ["01900000-0000-7000-8000-0000000000d0", "01900000-0000-7000-8000-0000000000d1"]
        for (const [i, id] of orgs.entries()) {
          const familyId = `01900000-0000-7000-8000-0000000000e${i}`
          yield* sql`insert into organizations ${sql.insert({ id, name: `View ${i}`, slug: `view-${i}`, createdAt: "t", updatedAt: "t" })}`
          yield* sql`insert into attribute_families ${sql.insert({ id: familyId, organizationId: id, code: "f", entityKind: "product", label: "{}", createdAt: "t", updatedAt: "t" })}`
          for (const n of [0, 1, 2].slice(0, i + 1)) {
            yield* sql`insert into products ${
              sql.insert({
                id: `01900000-0000-7000-8000-000000000f${i}${n}`,
                organizationId: id,
                familyId,
                name: "shared name",
                slug: `p-${n}`,
                status: "draft",
                attributes: "{}",
                tags: "[]",
                searchText: " shared name ",
                createdAt: "t",
                updatedAt: "t"
              })
            }`
          }
        }
        const searched = sql`select CAST(count(*) AS INTEGER) as n from tenant_products where search_text like '%shared%'`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Count)),
          Effect.map((rows) => rows[0]?.n ?? -1)
        )
        expect(yield* sql.withTransaction(Effect.zipRight(sql.unsafe(`SET LOCAL ROLE ${APP_ROLE}`), searched))).toBe(0)
        expect(yield* uow.tenant(orgs[0] ?? "", searched)).toBe(1)
        expect(yield* uow.tenant(orgs[1] ?? "", searched)).toBe(2)
        const write = yield* Effect.exit(uow.tenant(orgs[0] ?? "", sql`update tenant_products set name = 'x'`))
        assert(Exit.isFailure(write))
        const refused = Cause.squash(write.cause)
        assert(refused instanceof SqlError)
        expect(String(refused.cause)).toContain("permission denied")
      }))

    it.effect("keeps a tenant transaction's writes together: all committed, all rolled back, or a failed savepoint alone", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const org = "01900000-0000-7000-8000-0000000000a0"
        yield* sql`insert into organizations ${sql.insert({ id: org, name: "Whole", slug: "whole", createdAt: "t", updatedAt: "t" })}`
        const key = (n: number) =>
          sql`insert into api_keys ${
            sql.insert({ id: `01900000-0000-7000-8000-0000000000b${n}`, organizationId: org, name: `k${n}`, prefix: "pim_zzzz", keyHash: `whole-${n}`, createdAt: "t", updatedAt: "t" })
          }`
        const names = sql`select name from api_keys where organization_id = ${org} order by name`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String })))),
          Effect.map((rows) => rows.map((r) => r.name))
        )

        yield* uow.tenant(org, key(1))
        const failed = yield* Effect.exit(uow.tenant(org, Effect.zipRight(key(2), Effect.fail("refused" as const))))
        assert(Exit.isFailure(failed))
        const died = yield* Effect.exit(uow.tenant(org, Effect.zipRight(key(3), Effect.die("broken"))))
        assert(Exit.isFailure(died))
        // A failed nested transaction is undone alone; the outer one still commits.
        yield* uow.tenant(org, Effect.zipRight(key(4), Effect.ignore(uow.tenant(org, Effect.zipRight(key(5), Effect.fail("refused" as const))))))
        expect(yield* names).toEqual(["k1", "k4"])
        // The next transaction on a pooled connection starts clean: no tenant, no role left over.
        const after = yield* sql.withTransaction(Effect.zipRight(sql.unsafe(`SET LOCAL ROLE ${APP_ROLE}`), count("api_keys")))
        expect(after).toBe(0)
      }))

    it.effect("runs a tenant transaction without parallel workers, outermost or nested, and only it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const workers = sql`select current_setting('max_parallel_workers_per_gather') as workers`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ workers: Schema.String })))),
          Effect.map((rows) => rows[0]?.workers)
        )
        const outside = yield* workers
        expect(outside).not.toBe("0")
        const org = "01900000-0000-7000-8000-0000000000c1"
        expect(yield* uow.tenant(org, workers)).toBe("0")
        expect(yield* uow.system(uow.tenant(org, workers))).toBe("0")
        expect(yield* workers).toBe(outside)
      }))

    it.effect("refuses an organization id that is not a UUID before running anything", () =>
      Effect.gen(function*() {
        const uow = yield* UnitOfWork
        let ran = false
        const exit = yield* Effect.exit(uow.tenant("x'); drop table products; --", Effect.sync(() => (ran = true))))
        assert(Exit.isFailure(exit))
        expect(Cause.pretty(exit.cause)).toContain("is not a UUID")
        expect(ran).toBe(false)
      }))

    it.effect("puts every tenant table under forced row-level security", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`select relname, relrowsecurity, relforcerowsecurity from pg_class
          where relkind = 'r' and ${sql.in("relname", TENANT_TABLES)}`.pipe(Effect.flatMap(Schema.decodeUnknown(Security)))
        const unprotected = TENANT_TABLES.filter((t) => !rows.some((r) => r.relname === t && r.relrowsecurity && r.relforcerowsecurity))
        expect(unprotected).toEqual([])
      }))

    it.effect("finds every table holding organization_id listed, forced, and filtered for every command", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // Found from the catalog, not from the list, so a table added without being listed shows up.
        const holding = yield* sql`select distinct c.relname from pg_class c join pg_attribute a on a.attrelid = c.oid
          where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and a.attname = 'organization_id'
          and not a.attisdropped`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ relname: Schema.String })))))
        const tables = [...holding.map((r) => r.relname), "organizations"]
        expect(tables.filter((t) => t !== "organizations" && !TENANT_TABLES.includes(t))).toEqual([])
        const policies = yield* sql`select c.relname, c.relrowsecurity, c.relforcerowsecurity, p.polcmd::text as command,
          p.polpermissive as permissive, p.polroles = '{0}'::oid[] as everyone,
          pg_get_expr(p.polqual, p.polrelid) as using, pg_get_expr(p.polwithcheck, p.polrelid) as checks
          from pg_class c left join pg_policy p on p.polrelid = c.oid
          where c.relnamespace = current_schema()::regnamespace and ${sql.in("c.relname", tables)}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({
            relname: Schema.String,
            relrowsecurity: Schema.Boolean,
            relforcerowsecurity: Schema.Boolean,
            command: Schema.NullOr(Schema.String),
            permissive: Schema.NullOr(Schema.Boolean),
            everyone: Schema.NullOr(Schema.Boolean),
            using: Schema.NullOr(Schema.String),
            checks: Schema.NullOr(Schema.String)
          }))))
        )
        const tenantOnly = (column: string, expression: string | null) =>
          expression === `(${column} = (NULLIF(current_setting('app.organization_id'::text, true), ''::text))::uuid)`
        // One permissive policy per table, for every command and every role, reading and writing only the tenant's rows.
        const unsafe = tables.filter((t) => {
          const rows = policies.filter((p) => p.relname === t)
          const column = t === "organizations" ? "id" : "organization_id"
          return rows.length !== 1 || !rows.every((p) =>
            p.relrowsecurity && p.relforcerowsecurity && p.command === "*" && p.permissive === true && p.everyone === true &&
            tenantOnly(column, p.using) && tenantOnly(column, p.checks)
          )
        })
        expect(unsafe).toEqual([])
      }))

    it.effect("gives the application role no way around the policies", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const role = yield* sql`select rolsuper, rolbypassrls, rolcanlogin from pg_roles where rolname = ${APP_ROLE}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ rolsuper: Schema.Boolean, rolbypassrls: Schema.Boolean, rolcanlogin: Schema.Boolean }))))
        )
        expect(role).toEqual([{ rolsuper: false, rolbypassrls: false, rolcanlogin: false }])
        // It owns nothing (an owner may turn security off) and reaches no relation outside the policies but the shared users and the filtering view.
        const reachable = yield* sql`select c.relname, pg_has_role(${APP_ROLE}, c.relowner, 'USAGE') as owns from pg_class c
          where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
          and (has_table_privilege(${APP_ROLE}, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
            or pg_has_role(${APP_ROLE}, c.relowner, 'USAGE'))
          and not (c.relrowsecurity and c.relforcerowsecurity)`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ relname: Schema.String, owns: Schema.Boolean }))))
        )
        expect(reachable.map((r) => r.relname).sort()).toEqual(["tenant_products", "users"])
        expect(reachable.filter((r) => r.owns)).toEqual([])
        const owned = yield* sql`select c.relname from pg_class c where c.relnamespace = current_schema()::regnamespace
          and pg_has_role(${APP_ROLE}, c.relowner, 'USAGE')`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ relname: Schema.String })))))
        expect(owned).toEqual([])
      }))

    it.effect("lets a tenant read users but not write them: a user may be another organization's member", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const [a, b] = ["01900000-0000-7000-8000-0000000002a0", "01900000-0000-7000-8000-0000000002b0"]
        const user = "01900000-0000-7000-8000-0000000002b1"
        for (const [i, id] of [a, b].entries()) {
          yield* sql`insert into organizations ${sql.insert({ id, name: `Users ${i}`, slug: `users-${i}`, createdAt: "t", updatedAt: "t" })}`
        }
        yield* sql`insert into users ${sql.insert({ id: user, email: "member@b.example", createdAt: "t", updatedAt: "t" })}`
        yield* sql`insert into memberships ${sql.insert({ organizationId: b, userId: user, role: "admin", createdAt: "t" })}`
        const refusal = (statement: Effect.Effect<unknown, unknown>) =>
          Effect.map(Effect.exit(uow.tenant(a, statement)), (exit) => {
            if (Exit.isSuccess(exit)) return "written"
            const defect = Cause.squash(exit.cause)
            return String(defect instanceof SqlError ? defect.cause : defect)
          })
        expect(yield* uow.tenant(a, sql`select email from users where id = ${user}`)).toEqual([{ email: "member@b.example" }])
        expect(yield* refusal(sql`delete from users where id = ${user}`)).toContain("permission denied")
        expect(yield* refusal(sql`update users set email = 'someone@a.example' where id = ${user}`)).toContain("permission denied")
        expect(yield* refusal(sql`insert into users ${sql.insert({ id: "01900000-0000-7000-8000-0000000002a1", email: null, createdAt: "t", updatedAt: "t" })}`))
          .toContain("permission denied")
        expect(yield* sql`select u.email, m.organization_id from users u join memberships m on m.user_id = u.id where u.id = ${user}`)
          .toEqual([{ email: "member@b.example", organizationId: b }])
      }))

    it.effect("refuses in the database a record that names another organization's record, whatever the application checks", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        // Every key from one tenant record to another carries the organization: on its own, or beside a key on the id alone.
        const keys = yield* sql`select c.conrelid::regclass::text as tbl, c.confrelid::regclass::text as refs,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
              join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as cols
          from pg_constraint c where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ tbl: Schema.String, refs: Schema.String, cols: Schema.Array(Schema.String) }))))
        )
        const guarded = (k: (typeof keys)[number]) =>
          k.cols.includes("organization_id") ||
          keys.some((o) => o.tbl === k.tbl && o.refs === k.refs && o.cols.join() === ["organization_id", ...k.cols].join())
        expect(keys.filter((k) => !["organizations", "users"].includes(k.refs) && !guarded(k)).map((k) => `${k.tbl} (${k.cols}) -> ${k.refs}`)).toEqual([])
        expect(keys.filter((k) => k.tbl === "products").length).toBeGreaterThan(2)

        const orgs = ["01900000-0000-7000-8000-0000000001a0", "01900000-0000-7000-8000-0000000001b0"] as const
        const ids = (i: number) => ({
          family: `01900000-0000-7000-8000-0000000001${i}1`,
          brand: `01900000-0000-7000-8000-0000000001${i}2`,
          category: `01900000-0000-7000-8000-0000000001${i}3`,
          product: `01900000-0000-7000-8000-0000000001${i}4`
        })
        for (const [i, id] of orgs.entries()) {
          const own = ids(i)
          yield* sql`insert into organizations ${sql.insert({ id, name: `Keys ${i}`, slug: `keys-${i}`, createdAt: "t", updatedAt: "t" })}`
          yield* sql`insert into attribute_families ${sql.insert({ id: own.family, organizationId: id, code: "f", entityKind: "product", label: "{}", createdAt: "t", updatedAt: "t" })}`
          yield* sql`insert into brands ${sql.insert({ id: own.brand, organizationId: id, name: "B", nameKey: "b", slug: "b", attributes: "{}", createdAt: "t", updatedAt: "t" })}`
          yield* sql`insert into categories ${sql.insert({ id: own.category, organizationId: id, name: "C", nameKey: "c", slug: "c", position: 0, attributes: "{}", createdAt: "t", updatedAt: "t" })}`
          yield* sql`insert into products ${
            sql.insert({ id: own.product, organizationId: id, familyId: own.family, name: "P", slug: "p", status: "draft", attributes: "{}", tags: "[]", searchText: " p ", createdAt: "t", updatedAt: "t" })
          }`
        }
        const [a, b] = [ids(0), ids(1)]
        const refused = (statement: Effect.Effect<unknown, unknown>) =>
          Effect.map(Effect.exit(uow.tenant(orgs[0], statement)), (exit) => {
            if (Exit.isSuccess(exit)) return "written"
            const defect = Cause.squash(exit.cause)
            return defect instanceof SqlError ? (defect.cause as { code?: string }).code : String(defect)
          })
        const link = (categoryId: string) => sql`insert into product_categories ${sql.insert({ organizationId: orgs[0], productId: a.product, categoryId, position: 0, familyId: a.family, status: "draft" })}`
        // The organization's own records can be named; the other's cannot (23503, a foreign key), though row-level security lets the statement run.
        expect(yield* refused(sql`update products set brand_id = ${b.brand} where id = ${a.product}`)).toBe("23503")
        expect(yield* refused(sql`update products set family_id = ${b.family} where id = ${a.product}`)).toBe("23503")
        expect(yield* refused(sql`update categories set parent_id = ${b.category} where id = ${a.category}`)).toBe("23503")
        expect(yield* refused(link(b.category))).toBe("23503")
        expect(yield* refused(sql`update products set brand_id = ${a.brand} where id = ${a.product}`)).toBe("written")
        expect(yield* refused(link(a.category))).toBe("written")
        // Deleting a brand still clears it from its products.
        yield* uow.tenant(orgs[0], sql`delete from brands where id = ${a.brand}`)
        const brandIds = yield* sql`select brand_id from products where id = ${a.product}`
        expect(brandIds).toEqual([{ brandId: null }])
      }))

    it.effect("lists every JSON, boolean and 64-bit integer column of the tenant tables for the export, and no other", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`select table_name, column_name, data_type from information_schema.columns
          where table_schema = current_schema() and data_type in ('jsonb', 'boolean', 'bigint') and ${sql.in("table_name", TENANT_TABLES)}`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ tableName: Schema.String, columnName: Schema.String, dataType: Schema.String }))))
        )
        const typed = rows
          .filter((r) => !(EXPORT_COLUMNS[r.tableName]?.withheld ?? []).includes(snakeToCamel(r.columnName)))
          .map((r) => `${r.tableName}.${snakeToCamel(r.columnName)}:${r.dataType}`)
        const listed = Object.entries(EXPORT_COLUMNS).flatMap(([table, c]) => [
          ...(c.json ?? []).map((column) => `${table}.${column}:jsonb`),
          ...(c.booleans ?? []).map((column) => `${table}.${column}:boolean`),
          ...(c.integers ?? []).map((column) => `${table}.${column}:bigint`)
        ])
        expect(typed.sort()).toEqual(listed.sort())
      }))
  })

  /** A catalog with a row in every tenant table, written through the use cases as a request would. */
  const filledTenant = Effect.gen(function*() {
    const { organization, tenant } = yield* newTenant
    const as = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.provideService(e, CurrentTenant, tenant)
    const family = yield* familyWith(tenant, "product", [attr("weight", { type: "number" })])
    const pageFamily = yield* familyWith(tenant, "content", [])
    yield* as(Effect.flatMap(AttributeGroups, (g) => g.create({ code: "main", label: { en: "Main" } })))
    const category = yield* as(Effect.flatMap(Categories, (c) => c.create({ name: "Lamps" })))
    const brand = yield* as(Effect.flatMap(Brands, (b) => b.create({ name: "Lumen" })))
    const products = yield* Products
    const lamp = yield* as(products.create({
      familyId: family.id,
      name: "Lamp",
      brandId: brand.id,
      categoryIds: [category.id],
      tags: ["bright"],
      attributes: { weight: entry(2) }
    }))
    const shade = yield* as(products.create({ familyId: family.id, name: "Shade" }))
    yield* as(Effect.flatMap(Variants, (v) => v.create(lamp.id, { sku: `LAMP-${organization.slug}` })))
    const modifier = yield* as(Effect.flatMap(Modifiers, (m) => m.create({ code: "engraving", name: "Engraving", type: "text" })))
    yield* as(Effect.flatMap(ProductModifiers, (m) => m.attach(lamp.id, modifier.id)))
    yield* as(Effect.flatMap(Relationships, (r) => r.create(lamp.id, { relatedProductId: shade.id, type: "accessory" })))
    const part: UploadPart<never> = {
      _tag: "File",
      key: "file",
      filename: "lamp.txt",
      contentType: "text/plain",
      content: Stream.fromIterable([new TextEncoder().encode("lamp")])
    }
    yield* as(Effect.flatMap(MediaLibrary, (m) => m.upload(lamp.id, Stream.fromIterable([part]))))
    yield* as(Effect.flatMap(ContentPages, (p) => p.create({ familyId: pageFamily.id, title: "About" })))
    const connectors = yield* Connectors
    const connector = yield* as(connectors.install({
      type: "headless",
      name: "Shop",
      config: { destination_url: "http://127.0.0.1:9/hook", secret: "whsec-0123456789abcdef0123456789abcdef", extra_headers: {} }
    }))
    yield* as(connectors.sendTest(connector.id))
    // Written after the install, and with no dispatcher running, it waits in the connector's queue.
    yield* as(Effect.flatMap(Brands, (b) => b.create({ name: "Umbra" })))
    yield* as(Effect.flatMap(ApiKeys, (k) => k.create({ name: "ci" })))
    const users = yield* UserRepository
    const uow = yield* UnitOfWork
    yield* uow.tenant(organization.id, users.addInvite(organization.id, `admin@${organization.slug}.example`, "admin", "2026-01-01T00:00:00.000Z"))
    yield* uow.system(users.upsert({ id: tenant.actor.id, email: null }, "2026-01-01T00:00:00.000Z"))
    yield* uow.tenant(organization.id, users.addMembership(organization.id, tenant.actor.id, "admin", "2026-01-01T00:00:00.000Z"))
    return organization.id
  })

  layer(catalogOver(postgresStorage), { timeout: 60_000 })("a filled catalog", (it) => {
    it.effect("shows the application role, in every relation it may read, no row without a tenant and only the tenant's rows with one", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const a = yield* filledTenant
        const b = yield* filledTenant
        // Found from the catalog, not from a list, so a relation added later is checked too.
        const readable = yield* sql`select format('%I.%I', n.nspname, c.relname) as qualified, c.relname, c.relkind::text as kind,
            c.relrowsecurity and c.relforcerowsecurity as forced,
            (select cast(count(*) as integer) from pg_policy p where p.polrelid = c.oid) as policies,
            exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and a.attnum > 0
              and not a.attisdropped) as keyed,
            exists (select 1 from pg_constraint f where f.conrelid = c.oid and f.contype = 'f'
              and f.confrelid = 'organizations'::regclass) as references_organizations
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p', 'v', 'm', 'f') and n.nspname not in ('pg_catalog', 'information_schema')
            and has_schema_privilege(${APP_ROLE}, n.oid, 'USAGE') and has_any_column_privilege(${APP_ROLE}, c.oid, 'SELECT')
          order by 1`.pipe(Effect.flatMap(Schema.decodeUnknown(Readable)))
        const names = readable.map((r) => r.relname)
        // The enumeration finds what is known to be there, and what it calls shared exists and holds no tenant's rows.
        expect([...TENANT_TABLES, "organizations", "tenant_products", ...Object.keys(SHARED)].filter((t) => !names.includes(t))).toEqual([])
        expect(readable.filter((r) => r.relname in SHARED && (r.keyed || r.referencesOrganizations)).map((r) => r.relname)).toEqual([])

        const problems: Array<string> = []
        const scoped = readable.filter((r) => !(r.relname in SHARED))
        for (const r of scoped) {
          // A materialized view or a foreign table cannot carry a policy at all.
          if ((r.kind === "r" || r.kind === "p") && (!r.forced || r.policies === 0)) problems.push(`${r.relname}: no forced row-level security policy`)
          if (r.kind === "m" || r.kind === "f") problems.push(`${r.relname}: a ${r.kind === "m" ? "materialized view" : "foreign table"} cannot be under a policy`)
        }
        const keyOf = (r: typeof readable[number]) => (r.relname === "organizations" ? "id" : r.keyed ? "organization_id" : undefined)
        const Counts = Schema.Array(Schema.Struct({ n: Schema.Number, foreign: Schema.Number }))
        const counts = (r: typeof readable[number], key: string, org: string) =>
          sql.unsafe(`select cast(count(*) as integer) as n, cast(count(*) filter (where ${key} is distinct from $1) as integer) as foreign
            from ${r.qualified}`, [org]).pipe(Effect.flatMap(Schema.decodeUnknown(Counts)), Effect.map((rows) => rows[0] ?? { n: -1, foreign: -1 }))
        for (const r of scoped) {
          const key = keyOf(r)
          if (key === undefined) {
            problems.push(`${r.relname}: no organization_id to tell whose rows it holds`)
            continue
          }
          // The owner bypasses the policies: both tenants' rows are there, so what follows proves something.
          const [allA, allB] = r.kind === "v" ? [undefined, undefined] : [yield* counts(r, key, a), yield* counts(r, key, b)]
          if (allA !== undefined && (allA.n - allA.foreign === 0 || allB!.n - allB!.foreign === 0)) {
            problems.push(`${r.relname}: the fixture wrote no row of one of the tenants`)
          }
          const unset = yield* sql.withTransaction(Effect.zipRight(sql.unsafe(`SET LOCAL ROLE ${APP_ROLE}`), counts(r, key, a)))
          if (unset.n !== 0) problems.push(`${r.relname}: ${unset.n} rows without a tenant`)
          for (const [org, all] of [[a, allA], [b, allB]] as const) {
            const seen = yield* uow.tenant(org, counts(r, key, org))
            if (seen.foreign !== 0) problems.push(`${r.relname}: ${seen.foreign} rows of another tenant`)
            if (seen.n === 0) problems.push(`${r.relname}: none of the tenant's own rows`)
            if (all !== undefined && seen.n !== all.n - all.foreign) problems.push(`${r.relname}: ${seen.n} of the tenant's ${all.n - all.foreign} rows`)
          }
        }
        expect(problems).toEqual([])
      }))

    it.effect("answers a tenant's audit log statement, by action, entity type or dates, with the tenant's own events alone, whatever organization it names", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const a = yield* filledTenant
        const b = yield* filledTenant
        const names = (tenant: string, organizationId: string, filter: Partial<AuditFilter>) =>
          uow.tenant(tenant, auditPage(sql, organizationId, { limit: 200, offset: 0, ...filter })).pipe(Effect.map((page) => page.events.map((e) => e.name)))
        const filters: ReadonlyArray<Partial<AuditFilter>> = [{}, { action: "created" }, { entityType: "product" }, { since: "1970-01-01", until: "2100-01-01" }]
        for (const filter of filters) {
          expect(yield* names(b, b, filter)).not.toEqual([])
          expect(yield* names(a, b, filter)).toEqual([])
        }
        expect(yield* names(a, a, { action: "created", entityType: "product" })).toEqual(["product.created", "product.created"])
      }))

    it.effect("reads tenant_products, a plain view, with the search's LIKE on the trigram index, running the query's own conditions on every tenant's rows", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const a = yield* filledTenant
        const b = yield* filledTenant
        const options = yield* sql`select reloptions from pg_class where oid = 'tenant_products'::regclass`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ reloptions: Schema.NullOr(Schema.Array(Schema.String)) }))))
        )
        expect(options).toEqual([{ reloptions: null }])
        const [theirs] = yield* sql`select id from products where organization_id = ${b} order by id limit 1`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: Schema.String }))))
        )
        assert(theirs !== undefined)
        // The same view made the two other ways, compared in one transaction rolled back at its end, over an
        // organization of thousands of products of which one holds the word: the trigram index is worth using.
        const compared = sql.withTransaction(Effect.gen(function*() {
          yield* sql`insert into products (id, organization_id, family_id, name, slug, status, attributes, tags, search_text, created_at, updated_at)
            select gen_random_uuid(), organization_id, family_id, 'Filler', 'filler-' || g, status, attributes, tags, ' filler ' || g || ' ',
              created_at, updated_at
            from products, generate_series(1, 5000) g where organization_id = ${a} and slug = 'lamp'`
          yield* sql.unsafe(`SELECT gin_clean_pending_list('products_search_trgm'::regclass)`)
          yield* sql.unsafe(`ANALYZE products`)
          for (const [name, option] of [["barrier_products", "security_barrier"], ["invoker_products", "security_invoker"]]) {
            yield* sql.unsafe(`CREATE VIEW ${name} WITH (${option}) AS SELECT * FROM products WHERE organization_id = ${CURRENT_ORG}`)
            yield* sql.unsafe(`GRANT SELECT ON ${name} TO ${APP_ROLE}`)
          }
          yield* sql`select set_config('app.organization_id', ${a}, true), set_config('role', ${APP_ROLE}, true)`
          const out: Record<string, { trigram: boolean; reads: string }> = {}
          for (const view of ["tenant_products", "barrier_products", "invoker_products"]) {
            const plan = JSON.stringify(yield* sql.unsafe(`EXPLAIN (FORMAT JSON) SELECT id FROM ${view} p WHERE p.search_text LIKE '%lamp%'`))
            // A condition that fails on any row it is run on, after the one that finds another tenant's product by id.
            const probe = yield* sql.unsafe(`SAVEPOINT probe`).pipe(
              Effect.zipRight(sql.unsafe(`SELECT count(*) FROM ${view} p WHERE p.id = $1 AND CAST(CAST(p.organization_id AS text) AS integer) > 0`, [theirs.id])),
              Effect.as("none of their rows"),
              Effect.catchTag("SqlError", (e) => Effect.as(sql.unsafe(`ROLLBACK TO SAVEPOINT probe`), String(e.cause).includes(b) ? "their row" : String(e.cause)))
            )
            out[view] = { trigram: plan.includes("products_search_trgm"), reads: probe }
          }
          return yield* Effect.fail(new Undone({ out }))
        })).pipe(Effect.catchTag("Undone", (u) => Effect.succeed(u.out)))
        expect(yield* compared).toEqual({
          // No condition of the view stands between the LIKE and the index, and none stands before the query's own conditions either.
          tenant_products: { trigram: true, reads: "their row" },
          // Either way the tenant's condition comes first, and the LIKE is no more than a filter on every row of the organization.
          barrier_products: { trigram: false, reads: "none of their rows" },
          invoker_products: { trigram: false, reads: "none of their rows" }
        })
        // What the view answers is still the tenant's own products only.
        expect(yield* uow.tenant(a, count("tenant_products"))).toBe(2)
      }))
  })
})
