import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { persistentTestDatabase } from "../support/TestDatabase.js"
import { startTestHost, type TestHost, uuid } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

const serviceKey = () => {
  const key = host.config.serviceKey
  if (key._tag === "None") throw new Error("test host has no service key")
  return key.value
}

describe("authentication", () => {
  it("refuses missing, malformed and unknown credentials with 401", async () => {
    const badEmails = ["a\u0000b@example.com", "\ud800@example.com", `${"a".repeat(250)}@example.com`].map((email) => host.session(uuid(), email))
    for (const auth of [undefined, "pim_short", `pim_${"A".repeat(43)}`, "not-a-jwt", host.session(uuid(), undefined, -60), ...badEmails]) {
      const r = await host.request("GET", "/v1/api-keys", auth === undefined ? {} : { auth })
      expect(r.status).toBe(401)
      expect(r.json.error.code).toBe("unauthenticated")
    }
  })

  // Public by DESIGN.md: the health probes and the changelog. Every other operation the
  // OpenAPI document lists, present or future, must refuse a caller without credentials.
  it("refuses every operation of the OpenAPI document but the public ones with 401 when called without valid credentials", async () => {
    const PUBLIC = ["GET /healthz", "GET /readyz", "GET /v1/changelog"]
    const spec = await host.request("GET", "/openapi.json")
    const operations = Object.entries(spec.json.paths as Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })))
    expect(operations.filter((o) => PUBLIC.includes(`${o.method} ${o.path}`)).length).toBe(PUBLIC.length)
    // The document says so too: a client generated from it sends credentials where they are needed.
    const bearerOnly = [{ bearer: [] }]
    for (const { method, path, operation } of operations) {
      const expected = PUBLIC.includes(`${method} ${path}`) ? [] : `${method} ${path}` === "POST /v1/organizations" ? [...bearerOnly, { serviceKey: [] }] : bearerOnly
      expect([method, path, (operation as { security?: unknown }).security]).toEqual([method, path, expected])
    }
    expect(Object.keys(spec.json.components.securitySchemes)).toEqual(["bearer", "serviceKey"])
    const guarded = operations.filter((o) => !PUBLIC.includes(`${o.method} ${o.path}`))
    // Enough that a document listing nothing, or only a few routes, fails here.
    expect(guarded.length).toBeGreaterThan(70)
    for (const { method, path } of operations.filter((o) => PUBLIC.includes(`${o.method} ${o.path}`))) {
      expect([method, path, (await host.request(method, path)).status]).toEqual([method, path, 200])
    }
    const unauthenticated = { error: { code: "unauthenticated", message: expect.any(String) } }
    for (const { method, path, operation } of guarded) {
      const url = path.replace(/\{[^}]+\}/g, () => uuid())
      const types = Object.keys(operation.requestBody?.content ?? {})
      const body: { rawBody?: string; headers?: Record<string, string> } = types.includes("application/json")
        ? { rawBody: "{}", headers: { "content-type": "application/json" } }
        : types.includes("multipart/form-data")
        ? { rawBody: '--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\na\r\n--b--\r\n', headers: { "content-type": "multipart/form-data; boundary=b" } }
        : {}
      // No key, one that is no key, one of the right form that no organization holds, an expired session.
      for (const auth of [undefined, "pim_not-a-key", `pim_${"A".repeat(43)}`, host.session(uuid(), undefined, -60)]) {
        const r = await host.request(method, url, { ...body, ...(auth === undefined ? {} : { auth }) })
        expect([method, path, r.status, r.json, r.headers.get("www-authenticate")])
          .toEqual([method, path, 401, unauthenticated, 'Bearer realm="catalog"'])
      }
      if (method === "GET") {
        const head = await host.request("HEAD", url)
        expect([path, head.status, head.headers.get("www-authenticate")]).toEqual([path, 401, 'Bearer realm="catalog"'])
      }
    }
  })

  it("reads the Bearer scheme in any case and around any spaces, and refuses an empty token or two Authorization headers", async () => {
    const t = await host.tenant()
    for (const header of [`bearer ${t.apiKey}`, `BEARER   ${t.apiKey}  `, `Bearer\t${t.apiKey}`]) {
      expect([header, (await host.request("GET", "/v1/me", { headers: { authorization: header } })).status]).toEqual([header, 200])
    }
    // Only spaces and tabs separate: a no-break space (a byte a header may hold) is not one.
    const nbsp = "\u00a0"
    for (const header of ["Bearer", "Bearer ", `Basic ${t.apiKey}`, t.apiKey, `Bearer ${t.apiKey} ${t.apiKey}`, `Bearer${nbsp}${t.apiKey}`, `Bearer ${t.apiKey}${nbsp}`]) {
      const r = await host.request("GET", "/v1/me", { headers: { authorization: header } })
      expect([header, r.status, r.json.error?.code]).toEqual([header, 401, "unauthenticated"])
    }
    // A header of another form is named as such, not answered as if none had been sent.
    for (const header of ["Bearer", `Basic ${t.apiKey}`, t.apiKey, `Bearer ${t.apiKey} ${t.apiKey}`]) {
      const r = await host.request("GET", "/v1/me", { headers: { authorization: header } })
      expect([header, r.json.error.message]).toEqual([header, "the Authorization header must be Bearer and one token"])
    }
    const none = await host.request("GET", "/v1/me")
    expect([none.status, none.json.error.message]).toEqual([401, "missing credentials"])
    // Node keeps the first of two header lines: either key alone would act, so neither does.
    const url = new URL(host.baseUrl)
    const twice = async (first: string, second: string, method = "GET", path = "/v1/me") => {
      const socket = connect(Number(url.port), url.hostname)
      let text = ""
      socket.on("data", (c: Buffer) => (text += c.toString()))
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
      socket.write([`${method} ${path} HTTP/1.1`, `host: ${url.host}`, `authorization: Bearer ${first}`, `Authorization: Bearer ${second}`, "content-length: 0", "connection: close", "", ""].join("\r\n"))
      await closed
      return text
    }
    for (const [first, second] of [[t.apiKey, t.apiKey], [t.apiKey, `pim_${"A".repeat(43)}`], [`pim_${"A".repeat(43)}`, t.apiKey], [t.session, t.apiKey]]) {
      const answer = await twice(first!, second!)
      expect(answer).toMatch(/^HTTP\/1\.1 401 /)
      expect(answer).toContain('{"error":{"code":"unauthenticated","message":"more than one Authorization header"}}')
    }
    expect(await twice(t.apiKey, t.apiKey, "POST", "/v1/api-keys")).toMatch(/^HTTP\/1\.1 401 /)
  })

  it("refuses a session with no membership in the requested organization with 403", async () => {
    const t = await host.tenant()
    const stranger = host.session(uuid(), "stranger@example.com")
    const r = await host.request("GET", "/v1/api-keys", { auth: stranger, headers: { "x-organization-id": t.organization.id } })
    expect(r.status).toBe(403)
    expect(r.json.error.code).toBe("forbidden")
  })

  it("refuses a malformed x-organization-id with 422 and an unknown one like a foreign one, with 403", async () => {
    const t = await host.tenant()
    const other = await host.tenant()
    const malformed = await host.request("GET", "/v1/attributes", { auth: t.session, headers: { "x-organization-id": "not-a-uuid" } })
    // The same issue a malformed UUID in a path or body gets, so a client reads one code for both.
    const inPath = await host.request("GET", "/v1/attributes/not-a-uuid", { auth: t.session, headers: { "x-organization-id": t.organization.id } })
    const { message, code } = inPath.json.error.details.issues[0]
    expect([malformed.status, malformed.json.error.details.issues]).toEqual([422, [{ path: ["headers", "x-organization-id"], message, code }]])
    for (const id of [other.organization.id, uuid()]) {
      const r = await host.request("GET", "/v1/attributes", { auth: t.session, headers: { "x-organization-id": id } })
      expect([r.status, r.json]).toEqual([403, { error: { code: "forbidden", message: "no membership in the requested organization" } }])
    }
    const byKey = await t.req("GET", "/v1/me", { headers: { "x-organization-id": other.organization.id } })
    expect(byKey.json.organization.id).toBe(t.organization.id)
  })

  it("tells key and session callers who they are", async () => {
    const t = await host.tenant()
    const byKey = await t.req("GET", "/v1/me")
    expect(byKey.json).toEqual({ organization: { id: t.organization.id, name: t.organization.name, slug: t.organization.slug }, actor: { type: "api_key", id: t.apiKeyId }, role: null })
    const bySession = await t.sreq("GET", "/v1/me")
    expect(bySession.json).toMatchObject({ actor: { type: "user", id: t.userId }, role: "admin" })
    const noOrg = await host.request("GET", "/v1/me", { auth: t.session })
    expect(noOrg.json).toMatchObject({ organization: null, actor: { type: "user", id: t.userId } })
  })

  it("accepts the service key only on POST /v1/organizations, and ignores the header elsewhere", async () => {
    const { value } = await import("effect/Redacted")
    const alone = await host.request("GET", "/v1/me", { headers: { "x-pim-service-key": value(serviceKey()) } })
    expect([alone.status, alone.json.error.code]).toEqual([401, "unauthenticated"])
    const t = await host.tenant()
    for (const key of [value(serviceKey()), "wrong"]) {
      const me = await t.req("GET", "/v1/me", { headers: { "x-pim-service-key": key } })
      expect([me.status, me.json.actor]).toEqual([200, { type: "api_key", id: t.apiKeyId }])
      expect((await t.req("GET", "/v1/products", { headers: { "x-pim-service-key": key } })).status).toBe(200)
    }
    const slash = await host.request("POST", "/v1/organizations/", {
      headers: { "x-pim-service-key": value(serviceKey()) },
      body: { name: "Slash", slug: `slash-${uuid().slice(0, 8)}`, initialAdmin: { email: "slash@example.com" } }
    })
    expect(slash.status).toBe(201)
    const wrong = await t.req("POST", "/v1/organizations", { headers: { "x-pim-service-key": "wrong" }, body: { name: "x", slug: "x" } })
    expect([wrong.status, wrong.json.error.code]).toEqual([401, "unauthenticated"])
  })
})

describe("organizations", () => {
  it("creates with the service key, seating an invited admin when they first sign in", async () => {
    const email = `owner-${uuid().slice(0, 8)}@example.com`
    const slug = `acme-${uuid().slice(0, 8)}`
    const { value } = await import("effect/Redacted")
    const created = await host.request("POST", "/v1/organizations", {
      headers: { "x-pim-service-key": value(serviceKey()) },
      body: { name: "Acme", slug, initialAdmin: { email } }
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ name: "Acme", slug, settings: null })
    const newcomer = host.session(uuid(), email)
    const me = await host.request("GET", "/v1/me", { auth: newcomer, headers: { "x-organization-id": created.json.id } })
    expect(me.status).toBe(200)
    expect(me.json.role).toBe("admin")
  })

  it("refuses invalid bodies and a taken slug with 422", async () => {
    const { value } = await import("effect/Redacted")
    const post = (body: unknown) => host.request("POST", "/v1/organizations", { headers: { "x-pim-service-key": value(serviceKey()) }, body })
    expect((await post({ name: "x", slug: "Not A Slug" })).status).toBe(422)
    expect((await post({ name: "", slug: "fine" })).status).toBe(422)
    expect((await post({ slug: "fine" })).status).toBe(422)
    expect((await post({ name: "x", slug: "fine", settings: { colour: "blue" } })).status).toBe(422)
    for (const initialAdmin of [undefined, {}]) {
      const nobody = await post({ name: "x", slug: "fine", initialAdmin })
      expect(nobody.status).toBe(422)
      expect(nobody.json.error.details.issues.map((i: { path: Array<string>; code: string }) => [i.path, i.code])).toEqual([[["initialAdmin"], "required"]])
    }
    const longEmail = await post({ name: "x", slug: "fine", initialAdmin: { email: `${"a".repeat(243)}@example.com` } })
    expect([longEmail.status, longEmail.json.error.details.issues[0].path]).toEqual([422, ["initialAdmin", "email"]])
    expect((await post({ name: "x", slug: `fine-${uuid().slice(0, 8)}`, initialAdmin: { email: `${"a".repeat(242)}@example.com` } })).status).toBe(201)
    const t = await host.tenant()
    const someoneElse = await post({ name: "x", slug: `fine-${uuid().slice(0, 8)}`, initialAdmin: { userId: t.userId, email: "someone-else@example.com" } })
    expect([someoneElse.status, someoneElse.json.error.details.issues]).toEqual([
      422,
      [{ path: ["initialAdmin", "email"], message: "is not the email of the user initialAdmin.userId names", code: "user_mismatch" }]
    ])
    const taken = await post({ name: "x", slug: t.organization.slug, initialAdmin: { email: "taken@example.com" } })
    expect([taken.status, taken.json.error.code, taken.json.error.details.issues]).toEqual([
      422,
      "validation_failed",
      [{ path: ["slug"], message: "the slug is taken by another organization", code: "taken" }]
    ])
    const renamed = await t.sreq("PATCH", "/v1/organizations/me", { body: { slug: (await host.tenant()).organization.slug } })
    expect([renamed.status, renamed.json.error.details.issues[0].path]).toEqual([422, ["slug"]])
    expect((await t.req("GET", "/v1/organizations/me")).json.slug).toBe(t.organization.slug)
  })

  it("lets a member create another organization and refuses API keys", async () => {
    const t = await host.tenant()
    const slug = `second-${uuid().slice(0, 8)}`
    const bySession = await t.sreq("POST", "/v1/organizations", { body: { name: "Second", slug } })
    expect(bySession.status).toBe(201)
    const me = await host.request("GET", "/v1/me", { auth: t.session, headers: { "x-organization-id": bySession.json.id } })
    expect(me.json.role).toBe("admin")
    const byKey = await t.req("POST", "/v1/organizations", { body: { name: "Third", slug: `${slug}-3` } })
    expect(byKey.status).toBe(403)
  })

  it("refuses a caller that may not create or delete organizations with 403 before reading its body", async () => {
    const t = await host.tenant()
    const stranger = host.session(uuid(), undefined)
    const json = { "content-type": "application/json" }
    const attempts = [
      ["POST", "/v1/organizations", t.apiKey],
      ["POST", "/v1/organizations", stranger],
      ["DELETE", `/v1/organizations/${t.organization.id}`, t.apiKey],
      ["DELETE", "/v1/organizations/not-a-uuid", t.apiKey]
    ] as const
    for (const [method, path, auth] of attempts) {
      for (const rawBody of ["{}", "{bad"]) {
        const r = await host.request(method, path, { auth, rawBody, headers: json })
        expect([method, path, rawBody, r.status, r.json.error.code]).toEqual([method, path, rawBody, 403, "forbidden"])
      }
    }
  })

  it("seats a member's initialAdmin beside the member, or invites its email", async () => {
    const t = await host.tenant()
    const colleague = await host.tenant()
    const withUser = await t.sreq("POST", "/v1/organizations", {
      body: { name: "Shared", slug: `shared-${uuid().slice(0, 8)}`, initialAdmin: { userId: colleague.userId } }
    })
    expect(withUser.status).toBe(201)
    for (const session of [t.session, colleague.session]) {
      const me = await host.request("GET", "/v1/me", { auth: session, headers: { "x-organization-id": withUser.json.id } })
      expect([me.status, me.json.role]).toEqual([200, "admin"])
    }
    const email = `later-${uuid().slice(0, 8)}@example.com`
    const withEmail = await t.sreq("POST", "/v1/organizations", { body: { name: "Later", slug: `later-${uuid().slice(0, 8)}`, initialAdmin: { email } } })
    const newcomer = host.session(uuid(), email)
    const me = await host.request("GET", "/v1/me", { auth: newcomer, headers: { "x-organization-id": withEmail.json.id } })
    expect([me.status, me.json.role]).toEqual([200, "admin"])
    const unknown = await t.sreq("POST", "/v1/organizations", { body: { name: "No", slug: `no-${uuid().slice(0, 8)}`, initialAdmin: { userId: uuid() } } })
    expect([unknown.status, unknown.json.error.code]).toEqual([404, "not_found"])
  })

  it("shows features and billing, merges settings and refuses unknown keys", async () => {
    const t = await host.tenant()
    const me = await t.req("GET", "/v1/organizations/me")
    expect(me.json).toMatchObject({ id: t.organization.id, features: { content_pages: { entitled: true, enabled: true } }, billing: null })
    await t.sreq("PATCH", "/v1/organizations/me", { body: { settings: { default_locale: "en" } } })
    const patched = await t.sreq("PATCH", "/v1/organizations/me", { body: { name: "Renamed", settings: { content_pages_enabled: false } } })
    expect(patched.status).toBe(200)
    expect(patched.json).toMatchObject({ name: "Renamed", settings: { default_locale: "en", content_pages_enabled: false } })
    const after = await t.req("GET", "/v1/organizations/me")
    expect(after.json.features.content_pages.enabled).toBe(false)
    expect((await t.sreq("PATCH", "/v1/organizations/me", { body: { settings: { favourite: 1 } } })).status).toBe(422)
    const unset = await t.sreq("PATCH", "/v1/organizations/me", { body: { settings: { default_locale: null } } })
    expect([unset.status, unset.json.settings]).toEqual([200, { content_pages_enabled: false }])
  })

  it("refuses a default locale or channel no value could carry, and a default currency that is not one", async () => {
    const t = await host.tenant()
    const refused = [
      [{ default_locale: "" }, "default_locale"],
      [{ default_channel: "" }, "default_channel"],
      [{ default_currency: "EURO" }, "default_currency"],
      [{ default_currency: "eur" }, "default_currency"]
    ] as const
    for (const [settings, key] of refused) {
      const r = await t.sreq("PATCH", "/v1/organizations/me", { body: { settings } })
      expect([r.status, r.json.error.details.issues.map((i: { path: unknown }) => i.path)]).toEqual([422, [["settings", key]]])
    }
    const created = await t.sreq("POST", "/v1/organizations", { body: { name: "Priced", slug: `priced-${uuid().slice(0, 8)}`, settings: { default_currency: "XYZ" } } })
    expect(created.status).toBe(422)
    const ok = await t.sreq("PATCH", "/v1/organizations/me", { body: { settings: { default_locale: "en_US", default_channel: "web", default_currency: "CHF" } } })
    expect([ok.status, ok.json.settings]).toEqual([200, { default_locale: "en_US", default_channel: "web", default_currency: "CHF" }])
  })

  it("deletes only for an admin session with the right confirmation, then its keys stop working", async () => {
    const t = await host.tenant()
    const other = await host.tenant()
    const byKey = await t.req("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: t.organization.slug } })
    expect(byKey.status).toBe(403)
    const others = await t.sreq("DELETE", `/v1/organizations/${other.organization.id}`, { body: { confirm: other.organization.slug } })
    expect(others.status).toBe(404)
    const wrong = await t.sreq("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: "nope" } })
    expect(wrong.status).toBe(422)
    const ok = await t.sreq("DELETE", `/v1/organizations/${t.organization.id}`, { body: { confirm: t.organization.slug } })
    expect(ok.status).toBe(200)
    expect(ok.json.exportKey).toEqual(expect.any(String))
    expect(ok.json.deletedCounts.organizations).toBe(1)
    // Responses use camelCase, the counts' keys as much as any field (as `/usage` names `contentPages`).
    expect(ok.json.deletedCounts.apiKeys).toBe(1)
    expect(Object.keys(ok.json.deletedCounts).filter((key) => !/^[a-z][a-zA-Z0-9]*$/.test(key))).toEqual([])
    expect((await t.req("GET", "/v1/me")).status).toBe(401)
    expect((await other.req("GET", "/v1/me")).status).toBe(200)
  })
})

describe("API keys", () => {
  it("shows the plaintext once, lists a prefix, renames, and revokes once", async () => {
    const t = await host.tenant()
    const created = await t.sreq("POST", "/v1/api-keys", { body: { name: "ci", expiresAt: "2999-01-01T00:00:00Z" } })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ name: "ci", status: "active", prefix: created.json.key.slice(0, 8), expiresAt: "2999-01-01T00:00:00.000Z" })
    const list = await t.sreq("GET", "/v1/api-keys")
    expect(list.text).not.toContain(created.json.key)
    const renamed = await t.sreq("PATCH", `/v1/api-keys/${created.json.id}`, { body: { name: "ci 2" } })
    expect(renamed.json).toMatchObject({ id: created.json.id, name: "ci 2" })
    expect(renamed.json.key).toBeUndefined()
    const moved = await t.sreq("PATCH", `/v1/api-keys/${created.json.id}`, { body: { name: "ci 3", expiresAt: "2030-01-01T00:00:00Z" } })
    expect(moved.status).toBe(422)
    expect(moved.json.error.details.issues).toEqual([{ path: ["expiresAt"], message: "cannot be changed after creation", code: "immutable" }])
    expect((await t.sreq("PATCH", `/v1/api-keys/${created.json.id}`, { body: { name: "ci 2", expiresAt: null } })).status).toBe(422)
    const resent = await t.sreq("PATCH", `/v1/api-keys/${created.json.id}`, { body: { ...renamed.json, expiresAt: "2999-01-01T00:00:00Z" } })
    expect(resent.json).toMatchObject({ name: "ci 2", expiresAt: "2999-01-01T00:00:00.000Z" })
    expect((await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === created.json.id)).toMatchObject({ name: "ci 2", expiresAt: "2999-01-01T00:00:00.000Z" })
    expect((await t.sreq("POST", `/v1/api-keys/${created.json.id}/revoke`)).json.status).toBe("revoked")
    expect((await t.sreq("POST", `/v1/api-keys/${created.json.id}/revoke`)).status).toBe(404)
    expect((await host.request("GET", "/v1/me", { auth: created.json.key })).status).toBe(401)
    const listed = (await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === created.json.id)
    expect(listed.status).toBe("revoked")
  })

  it("renames a revoked or expired key, which stays refused, and revokes an expired one", async () => {
    const t = await host.tenant()
    const revoked = (await t.sreq("POST", "/v1/api-keys", { body: { name: "old ci" } })).json
    expect((await t.sreq("POST", `/v1/api-keys/${revoked.id}/revoke`)).status).toBe(200)
    const renamed = await t.sreq("PATCH", `/v1/api-keys/${revoked.id}`, { body: { name: "old ci (retired)" } })
    expect(renamed.status).toBe(200)
    expect(renamed.json).toMatchObject({ name: "old ci (retired)", status: "revoked", revokedAt: expect.any(String) })
    expect((await host.request("GET", "/v1/me", { auth: revoked.key })).status).toBe(401)

    const expiring = (await t.sreq("POST", "/v1/api-keys", { body: { name: "short", expiresAt: new Date(Date.now() + 1000).toISOString() } })).json
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const expiredRename = await t.sreq("PATCH", `/v1/api-keys/${expiring.id}`, { body: { name: "short (lapsed)" } })
    expect(expiredRename.json).toMatchObject({ name: "short (lapsed)", status: "expired", revokedAt: null })
    const revokedAfterExpiry = await t.sreq("POST", `/v1/api-keys/${expiring.id}/revoke`)
    expect(revokedAfterExpiry.json).toMatchObject({ status: "revoked", revokedAt: expect.any(String) })
    expect((await t.sreq("POST", `/v1/api-keys/${expiring.id}/revoke`)).status).toBe(404)
    expect((await host.request("GET", "/v1/me", { auth: expiring.key })).status).toBe(401)
  })

  it("creates a key whose expiry has passed as expired, refused on use, and takes a null expiry as none", async () => {
    const t = await host.tenant()
    const past = await t.sreq("POST", "/v1/api-keys", { body: { name: "old", expiresAt: "2001-01-01T00:00:00Z" } })
    expect([past.status, past.json.status, past.json.expiresAt]).toEqual([201, "expired", "2001-01-01T00:00:00.000Z"])
    expect((await host.request("GET", "/v1/me", { auth: past.json.key })).status).toBe(401)
    const open = await t.sreq("POST", "/v1/api-keys", { body: { name: "open", expiresAt: null } })
    expect([open.status, open.json.status, open.json.expiresAt]).toEqual([201, "active", null])
    expect((await host.request("GET", "/v1/me", { auth: open.json.key })).status).toBe(200)
    expect((await t.sreq("POST", "/v1/api-keys", { body: { name: "bad", expiresAt: "tomorrow" } })).status).toBe(422)
  })

  it("answers another organization's key ids with 404 and never lists them", async () => {
    const a = await host.tenant()
    const b = await host.tenant()
    expect((await b.sreq("PATCH", `/v1/api-keys/${a.apiKeyId}`, { body: { name: "mine now" } })).status).toBe(404)
    expect((await b.sreq("POST", `/v1/api-keys/${a.apiKeyId}/revoke`)).status).toBe(404)
    const listed = (await b.sreq("GET", "/v1/api-keys")).json.map((k: { id: string }) => k.id)
    expect(listed).not.toContain(a.apiKeyId)
    expect((await a.req("GET", "/v1/me")).status).toBe(200)
  })
})

describe("single-tenant deployments", () => {
  it("refuses creating organizations and serves the bootstrap organization with its configured key", async () => {
    const { make } = await import("effect/Redacted")
    const { some } = await import("effect/Option")
    const key = `pim_${"b".repeat(43)}`
    const single = await startTestHost({ tenancy: "single", bootstrapApiKey: some(make(key)) })
    try {
      const me = await single.request("GET", "/v1/organizations/me", { auth: key })
      expect(me.json).toMatchObject({ slug: "default", name: "default" })
      const audit = await single.request("GET", "/v1/audit-log?entity_type=organization", { auth: key })
      expect(audit.json.data.map((e: { name: string; entityId: string }) => [e.name, e.entityId])).toEqual([["organization.created", me.json.id]])
      const [registered] = (await single.request("GET", "/v1/api-keys", { auth: key })).json
      const keyAudit = await single.request("GET", "/v1/audit-log?entity_type=api_key", { auth: key })
      expect(keyAudit.json.data).toMatchObject([{
        name: "api_key.created",
        entityId: registered.id,
        actor: { type: "system", id: "00000000-0000-0000-0000-000000000000" },
        payload: { name: "bootstrap" }
      }])
      const create = await single.request("POST", "/v1/organizations", { auth: key, body: { name: "x", slug: "x" } })
      expect(create.status).toBe(403)
      expect(create.json.error.code).toBe("forbidden")
      const byService = await single.request("POST", "/v1/organizations", { headers: { "x-pim-service-key": "any" }, body: { name: "x", slug: "x" } })
      expect(byService.status).toBe(403)
      for (const path of ["/v1/organizations", "/V1//Organizations/", "/v1/organization%73"]) {
        expect([path, (await single.request("POST", path, { body: { name: "x", slug: "x" } })).status]).toEqual([path, 403])
      }
    } finally {
      await single.close()
    }
  })

  it("keeps serving the one organization after a restart when it was renamed", async () => {
    const { make } = await import("effect/Redacted")
    const { some } = await import("effect/Option")
    const key = `pim_${"c".repeat(43)}`
    const database = await persistentTestDatabase()
    const options = { tenancy: "single", bootstrapApiKey: some(make(key)), databaseUrl: database.url } as const
    try {
      const first = await startTestHost(options)
      const renamed = await first.request("PATCH", "/v1/organizations/me", { auth: key, body: { slug: "shop", name: "Shop" } })
      await first.close()
      const again = await startTestHost(options)
      try {
        const me = await again.request("GET", "/v1/organizations/me", { auth: key })
        expect(me.json).toMatchObject({ id: renamed.json.id, slug: "shop", name: "Shop" })
        expect(await database.query("select slug from organizations")).toEqual([{ slug: "shop" }])
        const keyAudit = await again.request("GET", "/v1/audit-log?entity_type=api_key", { auth: key })
        expect(keyAudit.json.data.map((e: { name: string }) => e.name)).toEqual(["api_key.created"])
      } finally {
        await again.close()
      }
    } finally {
      await database.drop()
    }
  })
})

describe("last use of a key", () => {
  it("is recorded in the background after the key is used", async () => {
    const t = await host.tenant()
    const before = (await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === t.apiKeyId)
    expect(before.lastUsedAt).toBeNull()
    await t.req("GET", "/v1/me")
    let lastUsedAt: string | null = null
    for (let i = 0; i < 40 && lastUsedAt === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      lastUsedAt = (await t.sreq("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === t.apiKeyId).lastUsedAt
    }
    expect(lastUsedAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/))
  })
})
