import { verify } from "@octokit/webhooks-methods"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_SUBSCRIPTION } from "../../core/events/Subscription.js"
import { type Receiver, startReceiver } from "../support/Receiver.js"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

const SECRET = "whsec-http-test-0123456789"

describe("HTTP: connectors, webhooks and the audit log", () => {
  let host: TestHost
  let receiver: Receiver
  let t: TestTenant
  beforeAll(async () => {
    host = await startTestHost()
    receiver = await startReceiver()
    t = await host.tenant()
  })
  afterAll(async () => {
    await receiver.close()
    await host.close()
  })

  const install = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    t.req("POST", "/v1/connectors", { body: { type: "headless", name: "Shop", config: { secret: SECRET, ...config }, ...extra } })

  it("installs a connector (201), never returns its secret, lists, patches and deletes it", async () => {
    const created = await install({ destination_url: receiver.url("/crud"), extra_headers: { "X-Shop": "one" } })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      organizationId: t.organization.id,
      type: "headless",
      name: "Shop",
      config: { destination_url: receiver.url("/crud"), events: DEFAULT_SUBSCRIPTION, extra_headers: { "X-Shop": "one" } }
    })
    expect(Object.keys(created.json).sort()).toEqual(["config", "createdAt", "id", "name", "organizationId", "type", "updatedAt"])
    expect(created.text).not.toContain(SECRET)
    const id: string = created.json.id

    const listed = await t.req("GET", "/v1/connectors")
    expect(listed.status).toBe(200)
    expect(listed.json.map((c: { id: string }) => c.id)).toContain(id)
    expect(listed.text).not.toContain(SECRET)

    const patched = await t.req("PATCH", `/v1/connectors/${id}`, { body: { config: { events: ["product.created", "brand.*"] } } })
    expect(patched.status).toBe(200)
    expect(patched.json.config).toEqual({ destination_url: receiver.url("/crud"), events: ["product.created", "brand.*"], extra_headers: { "X-Shop": "one" } })
    expect((await t.req("GET", `/v1/connectors/${id}`)).json.config.events).toEqual(["product.created", "brand.*"])

    const other = await host.tenant()
    expect((await other.req("GET", `/v1/connectors/${id}`)).status).toBe(404)
    expect((await other.req("DELETE", `/v1/connectors/${id}`)).status).toBe(404)

    expect((await t.req("DELETE", `/v1/connectors/${id}`)).status).toBe(204)
    expect((await t.req("GET", `/v1/connectors/${id}`)).json.error.code).toBe("not_found")
    expect((await t.req("GET", `/v1/connectors/${id}/deliveries`)).status).toBe(404)
    expect((await t.req("GET", "/v1/connectors/not-a-uuid")).status).toBe(422)
  })

  it("keeps each event pattern once, in the order first sent, on install and on update alike", async () => {
    const created = await install({ destination_url: receiver.url("/twice"), events: ["brand.*", "product.created", "brand.*"] })
    expect([created.status, created.json.config.events]).toEqual([201, ["brand.*", "product.created"]])
    const id: string = created.json.id
    const patched = await t.req("PATCH", `/v1/connectors/${id}`, { body: { config: { events: ["variant.*", "variant.*", "brand.*"] } } })
    expect([patched.status, patched.json.config.events]).toEqual([200, ["variant.*", "brand.*"]])
    expect((await t.req("GET", `/v1/connectors/${id}`)).json.config.events).toEqual(["variant.*", "brand.*"])
    // The same set sent again with a pattern repeated changes nothing.
    const again = await t.req("PATCH", `/v1/connectors/${id}`, { body: { config: { events: ["variant.*", "brand.*", "brand.*"] } } })
    expect([again.status, again.json.updatedAt]).toEqual([200, patched.json.updatedAt])
    const [latest] = (await t.req("GET", `/v1/audit-log?entity_type=connector&entity_id=${id}&action=updated`)).json.data
    expect(latest.payload.changed_fields).toEqual([])
  })

  it("stores and shows the destination as the URL standard writes it, and judges that host", async () => {
    const canonical = receiver.url("/canonical")
    const { port } = new URL(canonical)
    for (const typed of [`HTTP://%31%32%37.0.0.1:${port}/x/../canonical`, `http://0x7f.0.0.1:${port}/canonical`, `http://2130706433:${port}/./canonical`]) {
      const created = await install({ destination_url: typed })
      expect([typed, created.status, created.json.config?.destination_url]).toEqual([typed, 201, canonical])
      const id: string = created.json.id
      expect((await t.req("GET", `/v1/connectors/${id}`)).json.config.destination_url).toBe(canonical)
      // Sent back as typed or as shown, it is the same address.
      for (const destination_url of [typed, canonical]) {
        expect((await t.req("PATCH", `/v1/connectors/${id}`, { body: { config: { destination_url } } })).status).toBe(200)
      }
      expect((await t.req("DELETE", `/v1/connectors/${id}`)).status).toBe(204)
    }
    for (const typed of ["http://%31%30.0.0.1/h", "http://%31%32%37.0.0.2/h", "http://LOCALHOST./h", "http://loc%61lhost/h", "http://[0:0:0:0:0:0:0:1]/h"]) {
      const refused = await install({ destination_url: typed })
      expect([typed, refused.status, refused.json.error.details.issues[0].path]).toEqual([typed, 422, ["config", "destination_url"]])
    }
  })

  it.each([
    ["a secret shorter than 16 characters", { destination_url: "http://127.0.0.1:9/h", secret: "123456789012345" }, ["config", "secret"]],
    ["a secret of 8 characters in 16 UTF-16 units", { destination_url: "http://127.0.0.1:9/h", secret: "\u{1F511}".repeat(8) }, ["config", "secret"]],
    ["no secret", { destination_url: "http://127.0.0.1:9/h", secret: undefined }, ["config", "secret"]],
    ["an ftp destination", { destination_url: "ftp://203.0.113.10/h" }, ["config", "destination_url"]],
    ["a destination carrying a password", { destination_url: "http://user:pass@127.0.0.1:9/h" }, ["config", "destination_url"]],
    ["a destination carrying a user name", { destination_url: "http://user@127.0.0.1:9/h" }, ["config", "destination_url"]],
    ["a destination on port 0, which no connection can reach", { destination_url: "http://203.0.113.10:0/h" }, ["config", "destination_url"]],
    ["a private destination", { destination_url: "http://192.168.1.20/h" }, ["config", "destination_url"]],
    ["a loopback address outside the exempt range", { destination_url: "http://127.0.0.2:8080/h" }, ["config", "destination_url"]],
    ["a pattern with a wildcard in the middle", { destination_url: "http://127.0.0.1:9/h", events: ["product.*.created"] }, ["config", "events", 0]],
    ["a header the service sets", { destination_url: "http://127.0.0.1:9/h", extra_headers: { "X-Service-Signature-256": "sha256=0" } }, ["config", "extra_headers", "X-Service-Signature-256"]],
    ["a Content-Encoding header, which would misdescribe the plain JSON body", { destination_url: "http://127.0.0.1:9/h", extra_headers: { "Content-Encoding": "gzip" } }, ["config", "extra_headers", "Content-Encoding"]],
    ["a digest of a body the service writes", { destination_url: "http://127.0.0.1:9/h", extra_headers: { Digest: "sha-256=x" } }, ["config", "extra_headers", "Digest"]],
    ["a header value outside printable ASCII", { destination_url: "http://127.0.0.1:9/h", extra_headers: { "X-Note": "\u20acuro" } }, ["config", "extra_headers", "X-Note"]],
    ["a Trailer header, which a delivery with a length cannot carry", { destination_url: "http://127.0.0.1:9/h", extra_headers: { Trailer: "X-Foo" } }, ["config", "extra_headers", "Trailer"]],
    ["a destination of 2048 characters or fewer as sent but more once percent-encoded", { destination_url: `http://127.0.0.1:9/${"\u00e9".repeat(1000)}` }, ["config", "destination_url"]],
    ["a destination with white space around it", { destination_url: " http://127.0.0.1:9/h\t" }, ["config", "destination_url"]],
    ["a destination without the `//` the URL parser would add", { destination_url: "http:203.0.113.10/h" }, ["config", "destination_url"]],
    ["a destination with one slash after the scheme", { destination_url: "https:/203.0.113.10/h" }, ["config", "destination_url"]],
    ["a destination whose `\\` the URL parser reads as `/` (sent to 203.0.113.10, shown as 127.0.0.1)", { destination_url: "http://203.0.113.10\\@127.0.0.1/h" }, ["config", "destination_url"]],
    ["one header named twice in two cases", { destination_url: "http://127.0.0.1:9/h", extra_headers: { "X-A": "1", "x-a": "2" } }, ["config", "extra_headers", "x-a"]],
    ["a header value with a control character", { destination_url: "http://127.0.0.1:9/h", extra_headers: { "X-Note": "a\u0001b" } }, ["config", "extra_headers", "X-Note"]],
    ["an unknown config key", { destination_url: "http://127.0.0.1:9/h", extraHeaders: {} }, ["config", "extraHeaders"]]
  ])("refuses %s with 422 naming the field", async (_, config, path) => {
    const r = await install(config)
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe("validation_failed")
    expect(r.json.error.details.issues.map((i: { path: unknown }) => i.path)).toContainEqual(path)
  })

  it("lists every problem of the extra headers at once, each at the header it concerns", async () => {
    const r = await install({ destination_url: "http://127.0.0.1:9/h", extra_headers: { "Content-Type": "x", "X-A": "1", "x-a": "2", "X-B": "\u20ac" } })
    expect([r.status, r.json.error.details.issues]).toEqual([422, [
      { path: ["config", "extra_headers", "Content-Type"], message: "Content-Type is set by the service and cannot be overridden", code: "invalid" },
      { path: ["config", "extra_headers", "x-a"], message: "header names are case-insensitive: name each header once", code: "invalid" },
      { path: ["config", "extra_headers", "X-B"], message: "the value of X-B must be one line of printable ASCII of at most 4096 characters", code: "invalid" }
    ]])
  })

  it("names a header it refuses by its start, quoted where the name is no token", async () => {
    const long = "X-".padEnd(3_000, "a")
    const r = await install({ destination_url: "http://127.0.0.1:9/h", extra_headers: { "": "1", [`${long} `]: "1", [`X-Service-${long}`]: "1", [long]: "\u0001" } })
    const start = (name: string) => `${name.slice(0, 200)}…`
    expect([r.status, r.json.error.details.issues.map((i: { message: string }) => i.message)]).toEqual([422, [
      '"" is not a valid header name',
      `"${start(long)}" is not a valid header name`,
      `${start(`X-Service-${long}`)} is set by the service and cannot be overridden`,
      `the value of ${start(long)} must be one line of printable ASCII of at most 4096 characters`
    ]])
  })

  it("takes a name of 1 to 255 characters, counted as code points, like every other name", async () => {
    const atLimit = await install({ destination_url: "http://127.0.0.1:9/h" }, { name: "\u{1F511}".repeat(255) })
    expect(atLimit.status).toBe(201)
    const renamed = await t.req("PATCH", `/v1/connectors/${atLimit.json.id}`, { body: { name: "n".repeat(255) } })
    expect(renamed.status).toBe(200)
    for (const name of ["", "n".repeat(256)]) {
      const refused = await install({ destination_url: "http://127.0.0.1:9/h" }, { name })
      expect(refused.status).toBe(422)
      expect(refused.json.error.details.issues.map((i: { path: unknown }) => i.path)).toEqual([["name"]])
      const patched = await t.req("PATCH", `/v1/connectors/${atLimit.json.id}`, { body: { name } })
      expect(patched.status).toBe(422)
    }
  })

  it("refuses an extra header named `__proto__`, which no delivery could send", async () => {
    const r = await t.req("POST", "/v1/connectors", {
      rawBody: `{"type":"headless","name":"Shop","config":{"destination_url":"${receiver.url("/proto")}","secret":"${SECRET}","extra_headers":{"__proto__":"x","X-Shop":"one"}}}`,
      headers: { "content-type": "application/json" }
    })
    expect([r.status, r.json.error?.details?.issues?.map((i: { path: unknown; code: string }) => [i.path, i.code])])
      .toEqual([422, [[["config", "extra_headers", "__proto__"], "unrecognized_key"]]])
  })

  it("accepts a connector read and sent back whole on PATCH, but no new type, destination, headers or secret", async () => {
    const c = (await install({ destination_url: receiver.url("/whole"), extra_headers: { "X-Shop": "one" } })).json
    const read = (await t.req("GET", `/v1/connectors/${c.id}`)).json
    const sentBack = await t.req("PATCH", `/v1/connectors/${c.id}`, { body: { ...read, name: "Shop again" } })
    expect([sentBack.status, sentBack.json.name, sentBack.json.config]).toEqual([200, "Shop again", read.config])
    const moved = await t.req("PATCH", `/v1/connectors/${c.id}`, {
      body: { type: "shopify", config: { destination_url: receiver.url("/elsewhere"), extra_headers: { "X-Shop": "two" } } }
    })
    expect([moved.status, moved.json.error.details.issues.map((i: { path: unknown; code: string }) => [i.path, i.code])]).toEqual([422, [
      [["type"], "immutable"],
      [["config", "destination_url"], "immutable"],
      [["config", "extra_headers"], "immutable"]
    ]])
    const rotated = await t.req("PATCH", `/v1/connectors/${c.id}`, { body: { config: { secret: SECRET } } })
    expect([rotated.status, rotated.json.error.details.issues[0].path]).toEqual([422, ["config", "secret"]])
    expect((await t.req("GET", `/v1/connectors/${c.id}`)).json).toEqual({ ...read, name: "Shop again", updatedAt: sentBack.json.updatedAt })
  })

  it("refuses a type other than headless", async () => {
    const r = await install({ destination_url: "http://127.0.0.1:9/h" }, { type: "shopify" })
    expect(r.status).toBe(422)
  })

  it("sends a signed webhook.test, answers 200 with the attempt and logs it", async () => {
    const c = (await install({ destination_url: receiver.url("/test"), extra_headers: { "X-Shop": "two" } })).json
    const r = await t.req("POST", `/v1/connectors/${c.id}/webhooks/test`)
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ eventName: "webhook.test", status: 200, ok: true, error: null })
    const got = receiver.received.find((x) => x.path === "/test")
    if (got === undefined) throw new Error("no webhook.test received")
    expect(got.headers["x-service-event"]).toBe("webhook.test")
    expect(got.headers["x-service-delivery"]).toBe(r.json.eventId)
    expect(got.headers["x-shop"]).toBe("two")
    expect(await verify(SECRET, got.text, String(got.headers["x-service-signature-256"]))).toBe(true)
    const body = JSON.parse(got.text)
    expect(body).toMatchObject({ name: "webhook.test", organization_id: t.organization.id, entity_id: c.id, actor: { type: "api_key", id: t.apiKeyId } })

    const log = await t.req("GET", `/v1/connectors/${c.id}/deliveries`)
    expect(log.status).toBe(200)
    expect(log.json).toMatchObject({ limit: 50, offset: 0, hasMore: false })
    expect(log.json.data).toEqual([r.json])
    // Paged like the product list: limit 1 to 200, though only 50 attempts are kept.
    const wide = await t.req("GET", `/v1/connectors/${c.id}/deliveries?limit=200`)
    expect(wide.status).toBe(200)
    expect(wide.json).toMatchObject({ limit: 200, offset: 0, hasMore: false, data: [r.json] })
    expect((await t.req("GET", `/v1/connectors/${c.id}/deliveries?limit=201`)).status).toBe(422)
    expect((await t.req("GET", `/v1/connectors/${c.id}/deliveries?limit=0`)).status).toBe(422)
  })

  it("records a webhook.test in the audit log, and sends it only to the connector tested", async () => {
    const fresh = await host.tenant()
    const connect = (path: string, events: ReadonlyArray<string>) =>
      fresh.req("POST", "/v1/connectors", { body: { type: "headless", name: path, config: { destination_url: receiver.url(path), secret: SECRET, events } } })
    const tested = (await connect("/tested", ["product.*"])).json
    await connect("/listener", ["webhook.*", "api_key.*"])
    const sent = await fresh.req("POST", `/v1/connectors/${tested.id}/webhooks/test`)
    expect(sent.status).toBe(200)
    const audit = await fresh.req("GET", `/v1/audit-log?entity_id=${tested.id}&action=test`)
    expect(audit.json.data).toEqual([expect.objectContaining({
      id: sent.json.eventId,
      name: "webhook.test",
      entityType: "connector",
      entityId: tested.id,
      action: "test",
      actor: { type: "api_key", id: fresh.apiKeyId },
      payload: { connector_name: "/tested" }
    })])
    // The listener's later delivery shows the dispatcher has passed the test event by.
    await fresh.req("POST", "/v1/api-keys", { body: { name: "witness" } })
    await receiver.waitFor((x) => x.path === "/listener" && x.headers["x-service-event"] === "api_key.created")
    expect(receiver.received.filter((x) => x.path === "/listener").map((x) => x.headers["x-service-event"])).toEqual(["api_key.created"])
    expect(receiver.received.filter((x) => x.path === "/tested")).toHaveLength(1)
  })

  it("logs a test sent to a receiver that fails, with its status", async () => {
    receiver.answer("/broken", { status: 503 })
    const c = (await install({ destination_url: receiver.url("/broken") })).json
    const r = await t.req("POST", `/v1/connectors/${c.id}/webhooks/test`)
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ status: 503, ok: false })
  })

  it("delivers the host's own events in the background to a subscribed connector", async () => {
    const fresh = await host.tenant()
    const c = (await fresh.req("POST", "/v1/connectors", {
      body: { type: "headless", name: "Keys", config: { destination_url: receiver.url("/keys"), secret: SECRET, events: ["api_key.*"] } }
    })).json
    const key = (await fresh.req("POST", "/v1/api-keys", { body: { name: "pushed" } })).json
    const got = await receiver.waitFor((x) => x.path === "/keys" && x.headers["x-service-event"] === "api_key.created")
    expect(JSON.parse(got.text)).toMatchObject({ name: "api_key.created", entity_id: key.id, actor: { type: "api_key", id: fresh.apiKeyId } })
    expect(await verify(SECRET, got.text, String(got.headers["x-service-signature-256"]))).toBe(true)
    expect(c.config.events).toEqual(["api_key.*"])
  })

  it("sends organization.deleted to the connectors subscribed to it, after the tenant is gone", async () => {
    const doomed = await host.tenant()
    const install = (path: string, events: ReadonlyArray<string>) =>
      doomed.req("POST", "/v1/connectors", {
        body: { type: "headless", name: path, config: { destination_url: receiver.url(path), secret: SECRET, events } }
      })
    expect((await install("/farewell", ["organization.*"])).status).toBe(201)
    expect((await install("/not-listening", ["product.*"])).status).toBe(201)
    const slug = doomed.organization.slug
    const deleted = await doomed.sreq("DELETE", `/v1/organizations/${doomed.organization.id}`, { body: { confirm: slug } })
    expect(deleted.status).toBe(200)
    const got = await receiver.waitFor((x) => x.path === "/farewell")
    expect(got.headers["x-service-event"]).toBe("organization.deleted")
    expect(await verify(SECRET, got.text, String(got.headers["x-service-signature-256"]))).toBe(true)
    expect(JSON.parse(got.text)).toMatchObject({
      name: "organization.deleted",
      organization_id: doomed.organization.id,
      entity_id: doomed.organization.id,
      actor: { type: "user" },
      payload: { slug, exportKey: deleted.json.exportKey }
    })
    // A later delivery to another tenant: by then a delivery to the unsubscribed connector would have come.
    const witness = await host.tenant()
    await witness.req("POST", "/v1/connectors", {
      body: { type: "headless", name: "w", config: { destination_url: receiver.url("/witness"), secret: SECRET, events: ["api_key.*"] } }
    })
    await witness.req("POST", "/v1/api-keys", { body: { name: "after" } })
    await receiver.waitFor((x) => x.path === "/witness")
    expect(receiver.received.filter((x) => x.path === "/not-listening")).toEqual([])
    expect(receiver.received.filter((x) => x.path === "/farewell")).toHaveLength(1)
  })

  it("records an event with no changed fields for a write that changes nothing, and keeps updatedAt", async () => {
    const fresh = await host.tenant()
    const attribute = (await fresh.req("POST", "/v1/attributes", { body: { code: "gloss", label: { en: "Gloss" }, type: "text" } })).json
    const family = (await fresh.req("POST", "/v1/attribute-families", { body: { code: "paints", label: { en: "Paints" } } })).json
    await fresh.req("POST", `/v1/attribute-families/${family.id}/attributes`, { body: { attributeId: attribute.id } })
    const key = (await fresh.req("POST", "/v1/api-keys", { body: { name: "same" } })).json
    const modifier = (await fresh.req("POST", "/v1/modifiers", { body: { code: "gift_wrap", name: "Gift wrap", type: "text" } })).json
    const organization = (await fresh.req("GET", "/v1/organizations/me")).json

    const again = [
      await fresh.req("PATCH", `/v1/attributes/${attribute.id}`, { body: { label: { en: "Gloss" } } }),
      await fresh.req("PATCH", `/v1/attribute-families/${family.id}`, { body: { label: { en: "Paints" } } }),
      await fresh.req("PATCH", `/v1/attribute-families/${family.id}/attributes/${attribute.id}`, { body: { position: 0, requirementOverride: null } }),
      await fresh.req("PATCH", `/v1/api-keys/${key.id}`, { body: { name: "same" } }),
      await fresh.req("PATCH", `/v1/modifiers/${modifier.id}`, { body: { name: "Gift wrap" } }),
      await fresh.req("PATCH", "/v1/organizations/me", { body: { name: organization.name } })
    ]
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200])
    expect(again[4]?.json.updatedAt).toBe(modifier.updatedAt)
    expect(again[5]?.json.updatedAt).toBe(organization.updatedAt)
    // "Every write emits an event": each PATCH, newest first, none naming a changed field.
    const updates = (await fresh.req("GET", "/v1/audit-log?action=updated")).json.data
    expect(updates.map((e: { name: string }) => e.name)).toEqual([
      "organization.updated",
      "modifier.updated",
      "api_key.updated",
      "family_attribute.updated",
      "family.updated",
      "attribute.updated"
    ])
    expect(updates.map((e: { payload: { changed_fields: unknown } }) => e.payload.changed_fields)).toEqual([[], [], [], [], [], []])
    await fresh.req("PATCH", `/v1/modifiers/${modifier.id}`, { body: { name: "Gift box" } })
    const [latest] = (await fresh.req("GET", "/v1/audit-log?action=updated")).json.data
    expect([latest.name, latest.payload.changed_fields]).toEqual(["modifier.updated", ["name"]])
  })

  it("lists the audit log with the actor of each change, filtered and paged", async () => {
    const fresh = await host.tenant()
    const key = (await fresh.req("POST", "/v1/api-keys", { body: { name: "audited" } })).json
    await fresh.req("PATCH", `/v1/api-keys/${key.id}`, { body: { name: "audited 2" } })
    await fresh.sreq("POST", `/v1/api-keys/${key.id}/revoke`)

    const r = await fresh.req("GET", `/v1/audit-log?entity_id=${key.id}`)
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ limit: 50, offset: 0, hasMore: false })
    expect(r.json.data.map((e: { name: string }) => e.name)).toEqual(["api_key.revoked", "api_key.updated", "api_key.created"])
    const [revoked, updated] = r.json.data
    expect(Object.keys(updated).sort()).toEqual(["action", "actor", "createdAt", "entityId", "entityType", "id", "name", "payload"])
    expect(updated).toMatchObject({ entityType: "api_key", entityId: key.id, action: "updated", actor: { type: "api_key", id: fresh.apiKeyId } })
    expect(revoked.actor).toEqual({ type: "user", id: fresh.userId })

    const byAction = await fresh.req("GET", `/v1/audit-log?entity_type=api_key&action=revoked`)
    expect(byAction.json.data.map((e: { entityId: string }) => e.entityId)).toEqual([key.id])
    const paged = await fresh.req("GET", "/v1/audit-log?limit=1&offset=1")
    expect(paged.json).toMatchObject({ limit: 1, offset: 1, hasMore: true })
    expect(paged.json.data).toHaveLength(1)
    const future = await fresh.req("GET", `/v1/audit-log?since=${encodeURIComponent("2999-01-01T00:00:00Z")}`)
    expect(future.json.data).toEqual([])
    const past = await fresh.req("GET", `/v1/audit-log?until=${encodeURIComponent("2000-01-01T00:00:00+02:00")}`)
    expect(past.json.data).toEqual([])
    const byDate = await fresh.req("GET", "/v1/audit-log?since=2000-01-01&limit=200")
    expect(byDate.json.data.map((e: { entityId: string }) => e.entityId)).toContain(key.id)
    // Bounds between two milliseconds: `since` stays inclusive and `until` exclusive.
    const at = revoked.createdAt as string
    const between = (ms: number) => `${new Date(Date.parse(at) + ms).toISOString().slice(0, 23)}9Z`
    const window = async (query: string) =>
      (await fresh.req("GET", `/v1/audit-log?entity_type=api_key&action=revoked&${query}`)).json.data.map((e: { entityId: string }) => e.entityId)
    expect(await window(`since=${between(0)}`)).toEqual([])
    expect(await window(`since=${between(-1)}`)).toEqual([key.id])
    expect(await window(`until=${between(-1)}`)).toEqual([])
    expect(await window(`until=${between(0)}`)).toEqual([key.id])

    // `date` is one UTC day, as a date: it narrows `since` and `until` when given with them.
    const day = at.slice(0, 10)
    expect(await window(`date=${day}`)).toEqual([key.id])
    expect(await window(`date=${new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10)}`)).toEqual([])
    expect(await window(`date=${new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)}`)).toEqual([])
    expect(await window(`date=${day}&until=${between(-1)}`)).toEqual([])
    expect(await window(`date=${day}&since=2000-01-01`)).toEqual([key.id])
    expect((await fresh.req("GET", "/v1/audit-log?date=9999-12-31")).json.data).toEqual([])
    for (const bad of ["date=yesterday", "date=2026-02-30", `date=${encodeURIComponent(at)}`]) {
      const refused = await fresh.req("GET", `/v1/audit-log?${bad}`)
      expect(refused.json.error.details.issues, bad).toEqual([
        { path: ["date"], message: "must be a date (YYYY-MM-DD)", code: "invalid" }
      ])
    }

    for (const [key, value, message] of [["entity_type", "Product", "must be an entity type such as product"], ["action", "Created", "must be an action such as created"]] as const) {
      const refused = await fresh.req("GET", `/v1/audit-log?${key}=${value}`)
      expect(refused.json.error.details.issues, key).toEqual([{ path: [key], message, code: "invalid" }])
    }
    for (const bad of ["entityType=product", "limit=0", "limit=201", "offset=-1", `entity_id=${"x".repeat(5)}`, "since=yesterday", "until=2020-13-01"]) {
      const refused = await fresh.req("GET", `/v1/audit-log?${bad}`)
      expect(refused.status, bad).toBe(422)
      expect(refused.json.error.code).toBe("validation_failed")
    }
    for (const bad of ["since=yesterday", "until=2020-13-01", "since=2026-02-30T00:00:00Z", `until=${encodeURIComponent("9999-12-31T23:59:59-23:59")}`]) {
      const refused = await fresh.req("GET", `/v1/audit-log?${bad}`)
      expect(refused.json.error.details.issues, bad).toEqual([
        {
          path: [bad.split("=")[0]],
          message: "must be an ISO 8601 date-time with a zone, on a day that exists, in the years 0000 to 9999 once in UTC, or a date",
          code: "invalid"
        }
      ])
    }
    expect((await t.req("GET", `/v1/audit-log?entity_id=${key.id}`)).json.data).toEqual([])
    expect((await host.request("GET", "/v1/audit-log")).status).toBe(401)
  })
})
