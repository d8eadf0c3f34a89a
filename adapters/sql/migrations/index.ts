import tenancy from "./0001_tenancy.js"
import modifiers from "./0008_modifiers.js"

/** Every migration, by id. Ids only grow; a shipped migration is never edited. */
export const migrations = {
  "1_tenancy": tenancy,
  "8_modifiers": modifiers
}
