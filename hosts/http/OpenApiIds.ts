/**
 * The OpenAPI document without the `$id` Effect gives each schema of an unknown value
 * (`/schemas/unknown`): written once per such value, the same `$id` names hundreds of schemas,
 * which JSON Schema forbids, and validators of OpenAPI 3.1 refuse the document for it. The
 * schemas refer to each other by `$ref`, never by `$id`.
 */
export const withoutSchemaIds = (spec: Record<string, any>): Record<string, any> => {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip)
    if (typeof value !== "object" || value === null) return value
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "$id").map(([key, v]) => [key, strip(v)]))
  }
  return strip(spec) as Record<string, any>
}
