import { categoriesBrandsSuite } from "./contract/categoriesBrands.js"
import { productFacetsSuite } from "./contract/productFacets.js"
import { productQueriesSuite } from "./contract/productQueries.js"
import { productOracleSuite } from "./contract/productOracle.js"
import { productsSuite } from "./contract/products.js"
import { describe } from "@effect/vitest"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"
import { contentPagesSuite } from "./contract/contentPages.js"
import { modifiersSuite } from "./contract/modifiers.js"
import { variantsSuite } from "./contract/variants.js"
import { productLinksSuite } from "./contract/productLinks.js"
import { mediaSuite } from "./contract/media.js"
import { schemaSuite } from "./contract/schema.js"
import { outboxSuite } from "./contract/outbox.js"
import { auditAtomicitySuite } from "./contract/auditAtomicity.js"
import { tenancySuite } from "./contract/tenancy.js"
import { productJsonSuite } from "./contract/productJson.js"
import { storedRowsSuite } from "./contract/storedRows.js"

const available = await postgresAvailable()

describe.runIf(available)("postgres", () => {
  tenancySuite("postgres: tenancy", postgresStorage)
  modifiersSuite("postgres: modifiers", postgresStorage)
  schemaSuite("postgres: schema", postgresStorage)
  outboxSuite("postgres: outbox", postgresStorage)
  auditAtomicitySuite("postgres: audit atomicity", postgresStorage)
  productsSuite("postgres: products", postgresStorage)
  productQueriesSuite("postgres: product queries", postgresStorage)
  productFacetsSuite("postgres: product facets", postgresStorage)
  productOracleSuite("postgres: product lists and facets against a model", postgresStorage, 20)
  categoriesBrandsSuite("postgres: categories and brands", postgresStorage)
  storedRowsSuite("postgres: lists read from stored rows", postgresStorage)
  productJsonSuite("postgres: product json", postgresStorage)
  contentPagesSuite("postgres: content pages", postgresStorage)
  variantsSuite("postgres: variants", postgresStorage)
  productLinksSuite("postgres: product links", postgresStorage)
  mediaSuite("postgres: media", postgresStorage)
})
