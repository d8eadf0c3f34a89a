import tenancy from "./0001_tenancy.js"
import outbox from "./0003_outbox.js"

/** Every migration, by id. Ids only grow; a shipped migration is never edited. */
export const migrations = {
  "1_tenancy": tenancy,
  "3_outbox": outbox
}
