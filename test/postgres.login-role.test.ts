import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as PostgresStorage from "../adapters/postgres/PostgresStorage.js"
import { APP_ROLE } from "../adapters/sql/Rls.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { Products } from "../core/products/Products.js"
import { catalogOver } from "./support/Catalog.js"
import { inTenant, schemaFixture } from "./support/CatalogFixtures.js"
import { freshOwnedDatabase, postgresAvailable } from "./support/Postgres.js"

const available = await postgresAvailable()

// The README allows a login role that is no superuser, only allowed to create roles and bypass row-level security.
const ownedDatabase = Layer.unwrapScoped(Effect.map(freshOwnedDatabase("CREATEROLE BYPASSRLS"), (url) => PostgresStorage.layer(url, 2)))

describe.runIf(available)("postgres: a login role that is no superuser", () => {
  layer(catalogOver(ownedDatabase), { timeout: 60_000 })("owning the database", (it) => {
    it.effect("migrates it and serves a tenant as the application role", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        const { result, organizationId } = yield* inTenant(Effect.gen(function*() {
          const { family } = yield* schemaFixture
          return yield* (yield* Products).create({ familyId: family.id, name: "Lamp" })
        }))
        expect(result.name).toBe("Lamp")
        const [who] = yield* uow.tenant(organizationId, sql`select current_user as who`)
        expect(who).toEqual({ who: APP_ROLE })
      }))
  })
})
