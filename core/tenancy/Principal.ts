/** Who presented the credentials of a request, before any organization is chosen. */
export type Principal =
  | { readonly _tag: "ApiKey"; readonly keyId: string; readonly organizationId: string }
  | { readonly _tag: "User"; readonly userId: string; readonly email: string | null }
  | { readonly _tag: "Service" }
