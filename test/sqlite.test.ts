import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { schemaSuite } from "./contract/schema.js"
import { tenancySuite } from "./contract/tenancy.js"

const storage = SqliteStorage.layer(":memory:")

tenancySuite("sqlite: tenancy", storage)
schemaSuite("sqlite: schema", storage)
