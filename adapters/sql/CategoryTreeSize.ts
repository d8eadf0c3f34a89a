import type { SqlClient } from "@effect/sql"

/**
 * The organization's number of categories: no path up or down its tree is longer, so a walk
 * bounded by it reaches every level of a tree of any depth, and still ends on a cycle that
 * bad data might hold.
 */
export const categoryTreeSize = (sql: SqlClient.SqlClient, organizationId: string) =>
  sql`select count(*) from categories where organization_id = ${organizationId}`
