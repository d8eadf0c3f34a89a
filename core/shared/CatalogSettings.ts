import { Context } from "effect"

/** Deployment-level choices the use cases need; the host reads them from its configuration. */
export class CatalogSettings extends Context.Tag("catalog/CatalogSettings")<CatalogSettings, {
  /** `single`: one bootstrap organization and no creation over the API. */
  readonly tenancy: "single" | "multi"
  /** Plan-level entitlement for content pages. */
  readonly contentPagesEntitled: boolean
}>() {}
