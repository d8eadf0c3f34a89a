import * as SqliteStorage from "../adapters/sqlite/SqliteStorage.js"
import { outboxSuite } from "./contract/outbox.js"
import { tenancySuite } from "./contract/tenancy.js"

const storage = SqliteStorage.layer(":memory:")

tenancySuite("sqlite: tenancy", storage)

outboxSuite("sqlite: outbox", storage)
