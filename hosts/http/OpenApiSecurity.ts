import type { HttpApi } from "@effect/platform"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { Caller } from "./Authentication.js"

/** The credentials the API takes, as OpenAPI names them. */
const SECURITY_SCHEMES = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "An API key (`pim_` and 43 base64url characters), acting for its organization, or an admin session " +
      "token (an HS256 JWT), which names its organization in `x-organization-id`."
  },
  serviceKey: {
    type: "apiKey",
    in: "header",
    name: "x-pim-service-key",
    description: "The deployment's service key (`CATALOG_SERVICE_KEY`), taken by `POST /v1/organizations` alone."
  }
} as const

const ORGANIZATION_HEADER = {
  name: "x-organization-id",
  in: "header",
  required: false,
  description: "The organization an admin session acts in; one the session's user is no member of is 403. An API key acts in its own organization.",
  schema: { type: "string", format: "uuid" }
} as const

type Operation = { operationId?: string; security?: Array<Record<string, Array<string>>>; parameters?: Array<unknown> }

/**
 * What each operation of `api` takes as credentials, by operation id, read from its middlewares:
 * those that provide the tenant take a bearer, and the one that provides the caller takes the
 * service key too on its POST (an organization's creation), as it does when it runs. A route
 * added behind them is documented as they guard it.
 */
const credentialsByOperation = (api: HttpApi.HttpApi.Any): ReadonlyMap<string, ReadonlyArray<keyof typeof SECURITY_SCHEMES>> => {
  const out = new Map<string, ReadonlyArray<keyof typeof SECURITY_SCHEMES>>()
  for (const group of Object.values((api as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const provided = new Set<unknown>([...group.middlewares, ...endpoint.middlewares].map((middleware) => middleware.provides))
      const id = `${group.identifier}.${endpoint.name}`
      if (provided.has(Caller)) out.set(id, endpoint.method === "POST" ? ["bearer", "serviceKey"] : ["bearer"])
      else if (provided.has(CurrentTenant)) out.set(id, ["bearer"])
    }
  }
  return out
}

/** The OpenAPI document with the credentials each operation takes, and the header that picks the organization. */
export const documentCredentials = (api: HttpApi.HttpApi.Any) => (spec: Record<string, any>): Record<string, any> => {
  const credentials = credentialsByOperation(api)
  for (const methods of Object.values(spec.paths ?? {}) as Array<Record<string, Operation>>) {
    for (const operation of Object.values(methods)) {
      const schemes = credentials.get(operation.operationId ?? "")
      if (schemes === undefined) continue
      operation.security = schemes.map((scheme) => ({ [scheme]: [] }))
      operation.parameters = [...(operation.parameters ?? []), ORGANIZATION_HEADER]
    }
  }
  spec.components = { ...spec.components, securitySchemes: { ...spec.components?.securitySchemes, ...SECURITY_SCHEMES } }
  return spec
}
