import { categoriesBrandsSuite } from "./contract/categoriesBrands.js"
import { productFacetsSuite } from "./contract/productFacets.js"
import { productQueriesSuite } from "./contract/productQueries.js"
import { productOracleSuite } from "./contract/productOracle.js"
import { productsSuite } from "./contract/products.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { contentPagesSuite } from "./contract/contentPages.js"
import { modifiersSuite } from "./contract/modifiers.js"
import { variantsSuite } from "./contract/variants.js"
import { productLinksSuite } from "./contract/productLinks.js"
import { mediaSuite } from "./contract/media.js"
import { schemaSuite } from "./contract/schema.js"
import { outboxSuite } from "./contract/outbox.js"
import { tenancySuite } from "./contract/tenancy.js"
import { productJsonSuite } from "./contract/productJson.js"

const storage = SqliteStorage.layer(":memory:")

tenancySuite("sqlite: tenancy", storage)
modifiersSuite("sqlite: modifiers", storage)
schemaSuite("sqlite: schema", storage)
outboxSuite("sqlite: outbox", storage)
productsSuite("sqlite: products", storage)
productQueriesSuite("sqlite: product queries", storage)
productFacetsSuite("sqlite: product facets", storage)
productOracleSuite("sqlite: product lists and facets against a model", storage, 25)
categoriesBrandsSuite("sqlite: categories and brands", storage)
productJsonSuite("sqlite: product json", storage)
contentPagesSuite("sqlite: content pages", storage)
variantsSuite("sqlite: variants", storage)
productLinksSuite("sqlite: product links", storage)
mediaSuite("sqlite: media", storage)
