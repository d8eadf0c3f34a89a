import { Context, type Effect, type Option } from "effect"
import type { Conflict } from "../shared/Errors.js"
import type { Billing, Organization, OrganizationSettings } from "./Organization.js"

/** The organizations the database holds, as far as the single-tenant bootstrap asks: none, the only one, or several. */
export type SoleOrganization =
  | { readonly _tag: "None" }
  | { readonly _tag: "Sole"; readonly organization: Organization }
  | { readonly _tag: "Several" }

interface OrganizationRow {
  readonly organization: Organization
  readonly billing: Billing | null
}

/** Organizations (tenants) and the whole-tenant operations: export and cascade delete. */
export class OrganizationRepository extends Context.Tag("catalog/OrganizationRepository")<OrganizationRepository, {
  /** Fails with Conflict when the slug is taken. */
  readonly insert: (organization: Organization) => Effect.Effect<void, Conflict>
  readonly findById: (id: string) => Effect.Effect<Option.Option<OrganizationRow>>
  readonly findBySlug: (slug: string) => Effect.Effect<Option.Option<Organization>>
  readonly sole: Effect.Effect<SoleOrganization>
  /** Fails with Conflict when the new slug is taken. */
  readonly update: (
    id: string,
    changes: { readonly name?: string; readonly slug?: string; readonly settings?: OrganizationSettings | null; readonly updatedAt: string }
  ) => Effect.Effect<Option.Option<Organization>, Conflict>
  /**
   * Holds the organization against every write of its rows until the transaction ends, so that
   * an export and the deletion after it see the same rows; false when it no longer exists.
   */
  readonly holdForDeletion: (id: string) => Effect.Effect<boolean>
  /** Every row the organization owns, table by table, for the export written before deletion. */
  readonly exportTenant: (id: string) => Effect.Effect<Record<string, ReadonlyArray<unknown>>>
  /** Deletes the organization and everything it owns; answers the rows removed per table, keyed in camelCase (`apiKeys`). */
  readonly deleteCascade: (id: string) => Effect.Effect<Record<string, number>>
}>() {}
