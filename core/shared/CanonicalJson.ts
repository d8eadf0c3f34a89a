/**
 * JSON text with every object's keys in sorted order, so that equal values give equal text.
 * Postgres stores `jsonb` with its own key order, so a value read back is not key-for-key the
 * value written.
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v)

/** Whether two JSON values are equal, whatever the order of their objects' keys. */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b)

/**
 * Whether a value is one JSON can carry as it is: a number too large for a double (`1e400`)
 * parses to Infinity, which JSON text writes back as null.
 */
export const isJsonValue = (u: unknown): boolean =>
  u === null || typeof u === "string" || typeof u === "boolean" || (typeof u === "number" && Number.isFinite(u)) ||
  (Array.isArray(u) && u.every(isJsonValue)) ||
  (typeof u === "object" && Object.getPrototypeOf(u) === Object.prototype && Object.values(u).every(isJsonValue))
