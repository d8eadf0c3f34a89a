/**
 * Every table that holds a tenant's rows, children before parents. The tenant export reads
 * them all and the cascade delete counts them; a new tenant table is added here.
 */
export const TENANT_TABLES: ReadonlyArray<string> = [
  "content_pages",
  "media",
  "variants",
  "product_relationships",
  "product_modifiers",
  "product_numbers",
  "product_tags",
  "product_categories",
  "products",
  "categories",
  "brands",
  "modifiers",
  "family_attributes",
  "attribute_families",
  "attributes",
  "attribute_groups",
  "webhook_queue",
  "connector_deliveries",
  "connectors",
  "api_keys",
  "invites",
  "memberships",
  "events"
]
