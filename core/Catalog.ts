import { Layer } from "effect"
import { ModifiersLive } from "./modifiers/Modifiers.js"
import { AttributeGroupsLive } from "./schema/AttributeGroups.js"
import { AttributesLive } from "./schema/Attributes.js"
import { FamiliesLive } from "./schema/Families.js"
import { ApiKeysLive } from "./tenancy/ApiKeys.js"
import { AuthenticationLive } from "./tenancy/Authentication.js"
import { OrganizationsLive } from "./tenancy/Organizations.js"

/**
 * Every use case of the catalog, built on the ports: storage repositories, the event log,
 * the unit of work, crypto, the session verifier, the blob store and the catalog settings.
 */
export const services = Layer.mergeAll(
  OrganizationsLive,
  ApiKeysLive,
  ModifiersLive,
  AttributeGroupsLive,
  AttributesLive,
  FamiliesLive
).pipe(
  Layer.provideMerge(AuthenticationLive)
)
