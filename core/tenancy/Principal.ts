import type { Role } from "./Actor.js"

/** Who presented the credentials of a request, before any organization is chosen. */
export type Principal =
  | { readonly _tag: "ApiKey"; readonly keyId: string; readonly organizationId: string }
  | { readonly _tag: "User"; readonly userId: string; readonly email: string | null }
  | { readonly _tag: "Service" }

/** A principal acting in an organization. */
export interface TenantAccess {
  readonly organizationId: string
  readonly role: Role | null
}
