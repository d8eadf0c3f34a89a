import { catalogSuite } from "./contract/catalog.js"
import { describe } from "@effect/vitest"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"
import { tenancySuite } from "./contract/tenancy.js"

const available = await postgresAvailable()

describe.runIf(available)("postgres", () => {
  tenancySuite("postgres: tenancy", postgresStorage)
  catalogSuite("postgres: catalog", postgresStorage)
})
