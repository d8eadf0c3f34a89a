import { createHash } from "node:crypto"

/**
 * What the variants table indexes for a combination of axis values: its SHA-256, so that the
 * unique index holds 64 characters however long the values are (Postgres refuses index rows
 * over about 2.7 KB).
 */
export const axisDigest = (axisKey: string | null): string | null =>
  axisKey === null ? null : createHash("sha256").update(axisKey).digest("hex")
