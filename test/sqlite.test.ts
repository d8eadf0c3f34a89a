import { catalogSuite } from "./contract/catalog.js"
import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { tenancySuite } from "./contract/tenancy.js"

const storage = SqliteStorage.layer(":memory:")

tenancySuite("sqlite: tenancy", storage)
catalogSuite("sqlite: catalog", storage)
