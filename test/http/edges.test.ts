import { randomUUID } from "node:crypto"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RequestOptions, startTestHost, type TestHost } from "../support/TestHost.js"

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

/** A raw connection to the host, for requests `fetch` cannot send; `received()` is what came back so far. */
const rawConnection = () => {
  const url = new URL(host.baseUrl)
  const socket = connect(Number(url.port), url.hostname)
  let text = ""
  socket.on("data", (c: Buffer) => (text += c.toString()))
  socket.on("error", () => undefined)
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()))
  return { url, socket, received: () => text, closed }
}

describe("probes and release", () => {
  it("answers /healthz, /readyz and /v1/changelog without credentials, with one version", async () => {
    const health = await host.request("GET", "/healthz")
    expect(health.status).toBe(200)
    expect(health.json).toMatchObject({ status: "ok", service: "catalog-service" })
    const ready = await host.request("GET", "/readyz")
    expect(ready.status).toBe(200)
    expect(ready.json.status).toBe("ready")
    const changelog = await host.request("GET", "/v1/changelog")
    expect(changelog.status).toBe(200)
    expect(changelog.json.entries[0].version).toBe(changelog.json.version)
    expect(health.json.version).toBe(changelog.json.version)
  })

  it("serves the OpenAPI document generated from the contract, and the docs page", async () => {
    const spec = await host.request("GET", "/openapi.json")
    expect(spec.status).toBe(200)
    expect(Object.keys(spec.json.paths)).toEqual(expect.arrayContaining(["/v1/api-keys", "/v1/organizations", "/healthz"]))
    // The interface's version, as the specification gives it; the deployed one is the health probe's.
    expect(spec.json.info).toMatchObject({ title: "catalog-service", version: "0.31.2" })
    // A paged list's bounds and defaults are in the document, not only in the refusals.
    for (const path of ["/v1/products", "/v1/audit-log", "/v1/products/{id}/variants"]) {
      const params = spec.json.paths[path].get.parameters as ReadonlyArray<{ name: string; description?: string }>
      expect([path, params.filter((p) => p.name === "limit" || p.name === "offset").map((p) => p.description)])
        .toEqual([path, ["an integer from 1 to 200; 50 when absent", "an integer from 0 to 9007199254740991; 0 when absent"]])
    }
    // So are an upload's fields, as the upload checks them.
    const form = spec.json.paths["/v1/products/{id}/media"].post.requestBody.content["multipart/form-data"].schema.properties
    expect([form.alt.maxLength, form.position.description, form.position.pattern])
      .toEqual([1000, "an integer from 0 to 2147483647; one past the product's last media when absent", "^-?\\d+$"])
    // So are the bounds of the repeatable filters, which a query over them is refused for.
    for (const path of ["/v1/products", "/v1/products/facets"]) {
      const params = spec.json.paths[path].get.parameters as ReadonlyArray<{ name: string; schema: { description?: string } }>
      expect([path, params.filter((p) => p.name === "ids" || p.name === "tag").map((p) => p.schema.description)]).toEqual([path, [
        "at most 500 ids, repeated or comma-separated; one that is no UUID names no product",
        "at most 50 tags once canonicalized, repeated; a product matches when it carries all"
      ]])
      // A number's bound too, which the pattern cannot draw: 1e400 matches it and is refused.
      expect([path, params.filter((p) => p.name === "filterMin" || p.name === "filterMax").map((p) => p.schema.description)]).toEqual([path, [
        "a number in decimal notation, with an optional fraction and exponent, within a double's range: 1e400 is refused",
        "a number in decimal notation, with an optional fraction and exponent, within a double's range: 1e400 is refused"
      ]])
    }
    // A body's bounds too, where a refinement checks them: the shortest secret, a header's value, a label's locale.
    const body = (path: string) => spec.json.paths[path].post.requestBody.content["application/json"].schema.properties
    const config = body("/v1/connectors").config.properties
    expect([config.secret.minLength, config.extra_headers.patternProperties[""].maxLength]).toEqual([16, 4096])
    expect(body("/v1/attribute-groups").label.propertyNames.minLength).toBe(1)
    // Each operation lists the refusals it can answer, as the specification's tables do.
    const edge = ["400", "413", "415", "500"]
    const statuses = (path: string, method: string) =>
      Object.keys(spec.json.paths[path][method].responses).filter((s) => !edge.includes(s)).sort()
    // A probe decodes nothing, yet refuses what no route takes (U+0000, a query key `__proto__`, too deep).
    expect(statuses("/healthz", "get")).toEqual(["200", "422", "503"])
    expect(spec.json.paths["/healthz"].get.responses["422"].description).toContain("a query key names `__proto__`")
    expect((await host.request("GET", "/healthz?__proto__=1")).status).toBe(422)
    expect(statuses("/v1/products", "get")).toEqual(["200", "401", "403", "422", "503"])
    expect(statuses("/v1/products", "post")).toEqual(["201", "401", "403", "409", "422", "503"])
    expect(statuses("/v1/attribute-families/{id}", "delete")).toEqual(["204", "401", "403", "404", "409", "422", "503"])
    expect(statuses("/v1/organizations", "post")).toEqual(["201", "401", "403", "404", "422", "503"])
    // Every operation may meet the edge's refusals of a body (malformed JSON, too large, of
    // another type), which answer in the error envelope, not in HttpApi's own 400 body, and a
    // failure nothing handled (500 `internal`).
    // Each status names the `error.code`s it comes with, as the specification's table of errors does.
    const envelope = (codes: ReadonlyArray<string>) => ({
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "string", enum: codes }, message: { type: "string" } },
          additionalProperties: false
        }
      },
      additionalProperties: false
    })
    const edgeCodes: Record<string, ReadonlyArray<string>> = {
      "400": ["FST_ERR_CTP_INVALID_JSON_BODY", "FST_ERR_CTP_EMPTY_JSON_BODY"],
      "413": ["FST_ERR_CTP_BODY_TOO_LARGE"],
      "415": ["FST_ERR_CTP_INVALID_MEDIA_TYPE"],
      "500": ["internal"]
    }
    for (const [path, methods] of Object.entries(spec.json.paths as Record<string, Record<string, { responses: Record<string, any> }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const status of edge) {
          expect([path, method, status, operation.responses[status]?.content["application/json"].schema]).toEqual([path, method, status, envelope(edgeCodes[status]!)])
        }
      }
    }
    const refusal = (status: string) => spec.json.paths["/v1/products"].post.responses[status].content["application/json"].schema
    expect([refusal("401"), refusal("403"), refusal("409"), refusal("503")])
      .toEqual([envelope(["unauthenticated"]), envelope(["forbidden"]), envelope(["conflict"]), envelope(["unavailable"])])
    expect(spec.json.paths["/v1/products/{id}"].get.responses["404"].content["application/json"].schema).toEqual(envelope(["not_found"]))
    // A 422's `details` lists the issues, each `{path, message, code}`.
    const invalid = refusal("422").properties.error
    expect([invalid.required, invalid.properties.code, invalid.properties.details]).toEqual([
      ["code", "message", "details"],
      { type: "string", enum: ["validation_failed"] },
      {
        type: "object",
        required: ["issues"],
        properties: {
          issues: {
            type: "array",
            items: {
              type: "object",
              required: ["path", "message", "code"],
              properties: {
                path: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
                message: { type: "string" },
                code: { type: "string" }
              },
              additionalProperties: false
            }
          },
          truncated: { type: "boolean" }
        },
        additionalProperties: false
      }
    ])
    expect(Object.keys(spec.json.components.schemas)).not.toContain("HttpApiDecodeError")
    // An id is documented as the UUID it must be, in a path, a query and a record alike.
    const uuid = { type: "string", format: "uuid" }
    expect(spec.json.paths["/v1/products/{id}"].get.parameters[0]).toMatchObject({ name: "id", in: "path", schema: uuid })
    expect(spec.json.paths["/v1/products"].get.parameters.find((p: { name: string }) => p.name === "familyId").schema).toEqual(uuid)
    expect(spec.json.components.schemas.Product.properties.brandId).toEqual({ anyOf: [uuid, { type: "null" }] })
    // A valid JSON Schema names no two schemas by one `$id` (validators of OpenAPI 3.1 refuse that).
    const ids = [...JSON.stringify(spec.json).matchAll(/"\$id":"([^"]*)"/g)].map((m) => m[1])
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    // Text bounded in characters says so, as JSON Schema counts them (code points).
    const product = spec.json.paths["/v1/products"].post.requestBody.content["application/json"].schema.properties
    expect([product.name.maxLength, product.tags.items.maxLength, product.tags.maxItems]).toEqual([255, 80, 50])
    expect(spec.json.paths["/v1/products"].get.parameters.find((p: { name: string }) => p.name === "q").schema).toEqual({ type: "string", maxLength: 200 })
    // A bulk item is shown as the create, update or delete it is checked as, though each is checked alone.
    const bulkItems = spec.json.paths["/v1/products/bulk"].post.requestBody.content["application/json"].schema.properties.items.items
    expect(bulkItems.anyOf.map((item: { properties: { op: unknown }; required: unknown }) => [item.properties.op, item.required])).toEqual([
      [{ type: "string", enum: ["create"] }, ["op", "familyId", "name"]],
      [{ type: "string", enum: ["update"] }, ["op", "id"]],
      [{ type: "string", enum: ["delete"] }, ["op", "id"]]
    ])
    // A body's keys the endpoint does not define are ignored, so a body is open to them; a closed map in it is not.
    const bodies = Object.values(spec.json.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: any }> } }>>)
      .flatMap((methods) => Object.values(methods)).flatMap((o) => o.requestBody?.content["application/json"]?.schema ?? [])
    expect([bodies.length > 25, bodies.filter((b) => b.additionalProperties === false)]).toEqual([true, []])
    expect(bulkItems.anyOf.map((item: { additionalProperties: unknown }) => item.additionalProperties)).toEqual([true, true, true])
    const organization = spec.json.paths["/v1/organizations"].post.requestBody.content["application/json"].schema
    expect(organization.properties.initialAdmin.additionalProperties).toBe(false)
    // A media file's bytes come with the type it was uploaded with, whatever that is.
    expect(Object.keys(spec.json.paths["/v1/media/{id}/content"].get.responses["200"].content)).toEqual(["*/*"])
    // So is a moment, as the ISO 8601 date-time or date it must be.
    const dateTime = { type: "string", format: "date-time" }
    expect(spec.json.components.schemas.Product.properties.updatedAt).toEqual(dateTime)
    expect(spec.json.components.schemas.ApiKey.properties.expiresAt).toEqual({ anyOf: [dateTime, { type: "null" }] })
    expect(spec.json.paths["/v1/api-keys"].post.requestBody.content["application/json"].schema.properties.expiresAt).toEqual({ anyOf: [dateTime, { type: "null" }] })
    expect(spec.json.paths["/v1/products"].get.parameters.find((p: { name: string }) => p.name === "updatedSince").schema).toEqual(dateTime)
    const audit = spec.json.paths["/v1/audit-log"].get
    expect(audit.responses["200"].content["application/json"].schema.properties.data.items.properties.createdAt).toEqual(dateTime)
    expect(audit.parameters.filter((p: { name: string }) => ["since", "date"].includes(p.name)).map((p: { schema: unknown }) => p.schema))
      .toEqual([{ anyOf: [dateTime, { type: "string", format: "date" }] }, { type: "string", format: "date" }])
    const docs = await host.request("GET", "/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toContain("text/html")
  })
})

describe("the error envelope at the edges", () => {
  it("refuses an unknown query key on every list and on a product, naming it, and still serves them without it", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "lists", label: {} } })
    const product = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Listed" } })
    const lists = [
      "/v1/attribute-groups", "/v1/attributes", "/v1/attribute-families", "/v1/api-keys", "/v1/connectors", "/v1/modifiers",
      "/v1/categories", "/v1/brands", "/v1/products", "/v1/content-pages", "/v1/audit-log",
      `/v1/products/${product.json.id}/relationships`, `/v1/products/${product.json.id}/modifiers`,
      `/v1/products/${product.json.id}/variants`, `/v1/products/${product.json.id}/media`
    ]
    for (const path of lists) {
      const plain = await t.req("GET", path)
      expect([path, plain.status]).toEqual([path, 200])
      const r = await t.req("GET", `${path}?colour=red`)
      expect([path, r.status, r.json.error.details.issues]).toEqual([path, 422, [{ path: ["colour"], message: expect.any(String), code: "unrecognized_key" }]])
    }
    expect((await t.req("GET", "/v1/attributes?entityKind=brand")).status).toBe(200)
    // A misspelt `locale` on a product would otherwise answer without `resolvedAttributes`.
    const misspelt = await t.req("GET", `/v1/products/${product.json.id}?locle=en`)
    expect([misspelt.status, misspelt.json.error.details.issues[0].path]).toEqual([422, ["locle"]])
    expect((await t.req("GET", `/v1/products/${product.json.id}?locale=en&channel=web`)).status).toBe(200)
  })

  it("refuses an unknown query key on every read by id as the lists do, in the same envelope, and still serves the read without it", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "reads", label: {} } })
    const product = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Read" } })
    const variant = await t.req("POST", `/v1/products/${product.json.id}/variants`, { body: { sku: "READ-1" } })
    const attribute = await t.req("POST", "/v1/attributes", { body: { code: "reads", label: {}, type: "text" } })
    const category = await t.req("POST", "/v1/categories", { body: { name: "Reads" } })
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Reads" } })
    const modifier = await t.req("POST", "/v1/modifiers", { body: { code: "reads", name: "Reads", type: "text" } })
    const found = [
      `/v1/attributes/${attribute.json.id}`, `/v1/attributes/${attribute.json.id}/usage`, `/v1/attribute-families/${family.json.id}`,
      `/v1/categories/${category.json.id}`, `/v1/brands/${brand.json.id}`, `/v1/modifiers/${modifier.json.id}`,
      `/v1/products/${product.json.id}/variants/${variant.json.id}`, "/v1/me", "/v1/organizations/me"
    ]
    // Records not made here: the query is read before the record is looked up.
    const missing = [`/v1/media/${randomUUID()}`, `/v1/content-pages/${randomUUID()}`, `/v1/connectors/${randomUUID()}`]
    const listed = await t.req("GET", "/v1/modifiers?colour=red")
    expect(listed.status).toBe(422)
    for (const path of [...found, ...missing]) {
      expect([path, (await t.req("GET", path)).status]).toEqual([path, found.includes(path) ? 200 : 404])
      const r = await t.req("GET", `${path}?colour=red`)
      expect([path, r.status, r.json]).toEqual([path, 422, listed.json])
    }
  })

  it("answers an unknown route with 404 not_found", async () => {
    const r = await host.request("GET", "/v1/no-such-thing")
    expect(r.status).toBe(404)
    expect(r.json).toEqual({ error: { code: "not_found", message: expect.any(String) } })
  })

  it("answers an unknown route with 404 not_found whatever its body, query or method", async () => {
    const t = await host.tenant()
    const attempts = [
      ["POST", "/v1/no-such-thing", { rawBody: "name=x", headers: { "content-type": "text/plain" } }],
      ["POST", "/v1/no-such-thing", { rawBody: "{bad", headers: { "content-type": "application/json" } }],
      ["POST", "/v1/no-such-thing", { rawBody: "[".repeat(100), headers: { "content-type": "application/json" } }],
      ["POST", "/v1/no-such-thing", { rawBody: '{"name":"a\\u0000"}', headers: { "content-type": "application/json" } }],
      ["POST", "/v1/no-such-thing", { rawBody: JSON.stringify({ name: "x".repeat(11 * 1024 * 1024) }), headers: { "content-type": "application/json" } }],
      ["GET", "/v1/no-such-thing?q=%00", {}],
      ["GET", "/v1/no-such-thing?__proto__=1", {}],
      ["PUT", "/v1/categories", { rawBody: "x", headers: { "content-type": "text/plain" } }],
      ["DELETE", "/v1/categories", { rawBody: "{bad", headers: { "content-type": "application/json" } }]
    ] as const
    for (const [method, path, options] of attempts) {
      const r = await t.req(method, path, options)
      expect([method, path, r.status, r.json]).toEqual([method, path, 404, { error: { code: "not_found", message: "no such route" } }])
    }
    // A large body it did not read is answered at once, on a connection then closed.
    const streamed = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = httpRequest(`${host.baseUrl}/v1/no-such-thing`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.apiKey}`, "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }))
      })
      req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)))
      let answered = false
      req.on("response", () => (answered = true))
      const chunk = "x".repeat(1024 * 1024)
      const more = (left: number) => {
        if (answered) return
        if (left === 0) return req.end()
        req.write(chunk, () => more(left - 1))
      }
      more(64)
    })
    expect(streamed).toEqual({ status: 404, connection: "close" })
    const known = await t.req("POST", "/V1//Categories/", { rawBody: "name=x", headers: { "content-type": "text/plain" } })
    expect([known.status, known.json.error.code]).toEqual([415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
  })

  it("answers HEAD as GET without a body, OPTIONS as an unknown route, and a single-valued query key sent twice with 422", async () => {
    const t = await host.tenant()
    const head = await t.req("HEAD", "/v1/products")
    expect([head.status, head.text]).toEqual([200, ""])
    const options = await t.req("OPTIONS", "/v1/products")
    expect([options.status, options.json, options.headers.get("allow")]).toEqual([404, { error: { code: "not_found", message: "no such route" } }, null])
    for (const query of ["limit=1&limit=2", "sortDir=asc&sortDir=asc", "status=draft&status=active", "limit=", "brandId="]) {
      const r = await t.req("GET", `/v1/products?${query}`)
      const key = query.split("=")[0]
      expect([query, r.status, r.json.error.details.issues.map((i: { path: unknown }) => i.path)]).toEqual([query, 422, [[key]]])
    }
    for (const query of ["tag=a&tag=b", "ids=&q=", "tag="]) expect([query, (await t.req("GET", `/v1/products?${query}`)).status]).toEqual([query, 200])
  })

  it("says of a key that takes one value, sent twice, that it was, on every route with a query", async () => {
    const t = await host.tenant()
    const id = randomUUID()
    const queries = [
      "/v1/products?limit=5&limit=6", "/v1/products?status=active&status=draft", "/v1/products/facets?facetLimit=1&facetLimit=1",
      `/v1/products/${id}?locale=en&locale=de`, "/v1/categories?q=a&q=b", "/v1/brands?q=a&q=b", "/v1/attributes?entityKind=product&entityKind=content",
      "/v1/attribute-families?entityKind=product&entityKind=product", "/v1/audit-log?action=created&action=updated", `/v1/products/${id}/media?limit=1&limit=2`,
      "/v1/content-pages?status=draft&status=draft", `/v1/products/${id}/variants?offset=0&offset=1`, `/v1/connectors/${id}/deliveries?limit=1&limit=2`
    ]
    for (const query of queries) {
      const r = await t.req("GET", query)
      const key = query.slice(query.indexOf("?") + 1, query.indexOf("="))
      const issue = { path: [key], message: "is given 2 times: it takes one value", code: "invalid_type" }
      expect([query, r.status, r.json.error.details.issues.find((i: { path: Array<unknown> }) => i.path[0] === key)]).toEqual([query, 422, issue])
    }
    const several = await t.req("GET", "/v1/products?tag=a&tag=b&ids=x&ids=y&limit=1&limit=2")
    expect(several.json.error.details.issues).toEqual([{ path: ["limit"], message: "is given 2 times: it takes one value", code: "invalid_type" }])
  })

  it("answers malformed JSON with 400 and a FST_ERR_ code", async () => {
    const t = await host.tenant()
    const r = await t.req("POST", "/v1/api-keys", { rawBody: '{"name": ', headers: { "content-type": "application/json" } })
    expect(r.status).toBe(400)
    expect(r.json.error.code).toMatch(/^FST_ERR_/)
  })

  it("answers a body whose bytes are not UTF-8 with 400 and writes nothing, and keeps every character of one that is", async () => {
    const t = await host.tenant()
    const latin1 = Buffer.from(JSON.stringify({ name: "Zürich" }), "latin1")
    const refused = await t.req("POST", "/v1/brands", { rawBody: latin1, headers: { "content-type": "application/json" } })
    expect([refused.status, refused.json.error.code]).toEqual([400, "FST_ERR_CTP_INVALID_JSON_BODY"])
    expect(refused.json.error.message).toBe("the body is not valid JSON: it is not UTF-8")
    expect((await t.req("GET", "/v1/brands")).json).toEqual([])
    // U+FFFD itself is text like any other.
    const name = "Zürich 日本 😀 \ufffd"
    const kept = await t.req("POST", "/v1/brands", { rawBody: Buffer.from(JSON.stringify({ name }), "utf8"), headers: { "content-type": "application/json" } })
    expect([kept.status, kept.json.name]).toEqual([201, name])
  })

  it("answers an empty body sent as JSON with 400 where the route reads one, and takes it where it does not", async () => {
    const t = await host.tenant()
    const empty = { rawBody: "", headers: { "content-type": "application/json" } }
    for (const [method, path] of [["POST", "/v1/brands"], ["PATCH", "/v1/organizations/me"], ["POST", "/v1/categories"]] as const) {
      const r = await t.req(method, path, empty)
      expect([method, path, r.status, r.json?.error.code]).toEqual([method, path, 400, "FST_ERR_CTP_EMPTY_JSON_BODY"])
    }
    expect((await t.req("GET", "/v1/brands")).json).toEqual([])
    const key = await t.req("POST", "/v1/api-keys", { body: { name: "Revoked with an empty body" } })
    expect((await t.req("POST", `/v1/api-keys/${key.json.id}/revoke`, empty)).status).toBe(200)
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Deleted with an empty body" } })
    expect((await t.req("DELETE", `/v1/brands/${brand.json.id}`, empty)).status).toBe(204)
    const noType = await t.req("POST", "/v1/brands", { rawBody: "" })
    expect([noType.status, noType.json.error.code]).toEqual([422, "validation_failed"])
  })

  it("answers malformed JSON with 400 on routes that take no body too, doing nothing", async () => {
    const t = await host.tenant()
    const key = await t.req("POST", "/v1/api-keys", { body: { name: "Kept" } })
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Kept" } })
    const bad = { rawBody: "{bad", headers: { "content-type": "application/json" } }
    const targets = [
      ["POST", `/v1/api-keys/${key.json.id}/revoke`],
      ["DELETE", `/v1/brands/${brand.json.id}`],
      ["DELETE", `//v1//brands/${brand.json.id}`],
      ["DELETE", `/V1/Brands/${brand.json.id}`],
      ["DELETE", `/v1/brand%73/${brand.json.id}`],
      ["POST", `/v1/api-keys/${key.json.id}/revok%65`]
    ] as const
    for (const [method, path] of targets) {
      const r = await t.req(method, path, bad)
      expect([method, r.status, r.json?.error.code]).toEqual([method, 400, "FST_ERR_CTP_INVALID_JSON_BODY"])
    }
    expect((await t.req("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === key.json.id).status).toBe("active")
    expect((await t.req("GET", `/v1/brands/${brand.json.id}`)).status).toBe(200)
    const withJson = await t.req("POST", `/v1/api-keys/${key.json.id}/revoke`, { body: { ignored: true } })
    expect(withJson.status).toBe(200)
  })

  it("checks a body sent with a GET as on any route that reads none: malformed JSON is 400, like another type's 415", async () => {
    const t = await host.tenant()
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Read" } })
    // `fetch` sends no body with a GET; curl and others do.
    const get = (path: string, type: string, body: string) =>
      new Promise<{ status: number; code: unknown }>((resolve, reject) => {
        const req = httpRequest(`${host.baseUrl}${path}`, {
          method: "GET",
          headers: { authorization: `Bearer ${t.apiKey}`, "content-type": type, "content-length": Buffer.byteLength(body) }
        }, (res) => {
          let text = ""
          res.on("data", (c: Buffer) => (text += c.toString()))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(text) as { error?: { code: string } }).error?.code }))
        })
        req.on("error", reject)
        req.end(body)
      })
    for (const path of ["/v1/brands", `/v1/brands/${brand.json.id}`, "/v1/me", "/v1/products?limit=1", "/openapi.json"]) {
      expect([path, await get(path, "application/json", "{bad")]).toEqual([path, { status: 400, code: "FST_ERR_CTP_INVALID_JSON_BODY" }])
      expect([path, await get(path, "text/plain", "{bad")]).toEqual([path, { status: 415, code: "FST_ERR_CTP_INVALID_MEDIA_TYPE" }])
      expect([path, await get(path, "application/json", '{"any":[1]}')]).toEqual([path, { status: 200, code: undefined }])
    }
  })

  it("answers a body that is not JSON with 415 and one that is too large with 413", async () => {
    const t = await host.tenant()
    const wrongType = await t.req("POST", "/v1/api-keys", { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(wrongType.status).toBe(415)
    expect(wrongType.json.error.code).toBe("FST_ERR_CTP_INVALID_MEDIA_TYPE")
    const huge = await t.req("POST", "/v1/api-keys", { rawBody: JSON.stringify({ name: "x".repeat(11 * 1024 * 1024) }), headers: { "content-type": "application/json" } })
    expect(huge.status).toBe(413)
    expect(huge.json.error.code).toBe("FST_ERR_CTP_BODY_TOO_LARGE")
  })

  it("checks credentials and the organization before the body, whatever is wrong with it", async () => {
    const t = await host.tenant()
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Guarded" } })
    const json = { "content-type": "application/json" }
    const bodies = [
      { rawBody: '{"name": ', headers: json },
      { rawBody: '{"name":"x"}', headers: { "content-type": "text/plain" } },
      { rawBody: "", headers: json },
      { rawBody: "[".repeat(100) + "]".repeat(100), headers: json },
      { rawBody: '{"name":"a\\u0000"}', headers: json },
      { rawBody: "[]", headers: json },
      { rawBody: JSON.stringify({ name: "x".repeat(11 * 1024 * 1024) }), headers: json },
      { rawBody: "--b--\r\n", headers: { "content-type": "multipart/form-data; boundary=b" } }
    ]
    const routes = [["POST", "/v1/products"], ["PATCH", "/v1/organizations/me"], ["POST", "/v1/products/bulk"], ["DELETE", `/v1/brands/${brand.json.id}`], ["POST", "/v1/content-pages"]] as const
    const stranger = host.session(randomUUID())
    await host.request("GET", "/v1/me", { auth: stranger })
    const callers: ReadonlyArray<readonly [RequestOptions, number, string]> = [
      [{}, 401, "unauthenticated"],
      [{ auth: "pim_not-a-key" }, 401, "unauthenticated"],
      [{ auth: stranger, headers: { "x-organization-id": t.organization.id } }, 403, "forbidden"],
      [{ auth: t.session, headers: { "x-organization-id": "not-a-uuid" } }, 422, "validation_failed"]
    ]
    for (const [method, path] of routes) {
      for (const body of bodies) {
        for (const [caller, status, code] of callers) {
          const r = await host.request(method, path, { ...caller, ...body, headers: { ...body.headers, ...caller.headers } })
          expect([method, path, body.rawBody.slice(0, 12), r.status, r.json?.error.code]).toEqual([method, path, body.rawBody.slice(0, 12), status, code])
        }
      }
    }
    for (const query of ["?q=%00", "?colour=red", "?limit=0"]) {
      expect((await host.request("GET", `/v1/products${query}`)).status).toBe(401)
    }
    expect((await host.request("GET", "/v1/products/not-a-uuid")).status).toBe(401)
    expect((await t.req("GET", `/v1/brands/${brand.json.id}`)).status).toBe(200)
    // With credentials, the body's own refusal answers.
    expect((await t.req("POST", "/v1/products", bodies[1])).status).toBe(415)
    expect((await t.req("POST", "/v1/products", bodies[0])).status).toBe(400)
  })

  it("answers an HTTP/1.1 request without a Host header with 400 in the envelope, and runs nothing", async () => {
    const t = await host.tenant()
    for (const path of ["/healthz", "/v1/brands"]) {
      const { socket, received, closed } = rawConnection()
      socket.write([
        `POST ${path} HTTP/1.1`, `authorization: Bearer ${t.apiKey}`, "content-type: application/json",
        "content-length: 19", "", "{\"name\":\"Hostless\"}"
      ].join("\r\n"))
      await closed
      const [head = "", body = ""] = received().split("\r\n\r\n")
      expect(head).toMatch(/^HTTP\/1\.1 400 /)
      expect(head.toLowerCase()).toContain("content-type: application/json")
      expect(JSON.parse(body)).toEqual({ error: { code: "bad_request", message: "the request is not valid HTTP" } })
    }
    expect((await t.req("GET", "/v1/brands")).json).toEqual([])
    // HTTP/1.0 has no Host header to require.
    const { socket, received, closed } = rawConnection()
    socket.write("GET /healthz HTTP/1.0\r\n\r\n")
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 200 /)
  })

  it("counts the target, header names and values toward the 64 KiB of a request's head, and refuses 64 KiB with 431", async () => {
    // Counted: "/healthz" (8), "Host" and "h" (5), "Connection" and "close" (15), "X-Pad" (5) and the padding.
    const status = async (counted: number) => {
      const { socket, received, closed } = rawConnection()
      socket.write(`GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\nX-Pad: ${"a".repeat(counted - 33)}\r\n\r\n`)
      await closed
      return received().slice(0, 12)
    }
    expect([await status(65535), await status(65536)]).toEqual(["HTTP/1.1 200", "HTTP/1.1 431"])
  })

  it("answers an expectation it cannot meet with 417 and a CONNECT with 404, both in the envelope, and runs nothing", async () => {
    const t = await host.tenant()
    const answered = async (request: string) => {
      const { socket, received, closed } = rawConnection()
      socket.write(request)
      await closed
      const [head = "", body = ""] = received().split("\r\n\r\n")
      return { head, body: JSON.parse(body) as unknown }
    }
    const expecting = await answered([
      "POST /v1/brands HTTP/1.1", "host: x", `authorization: Bearer ${t.apiKey}`, "content-type: application/json",
      "expect: 200-ok", "content-length: 15", "connection: close", "", "{\"name\":\"Kept\"}"
    ].join("\r\n"))
    expect(expecting.head).toMatch(/^HTTP\/1\.1 417 /)
    expect(expecting.body).toEqual({ error: { code: "expectation_failed", message: expect.any(String) } })
    expect((await t.req("GET", "/v1/brands")).json).toEqual([])
    const connect = await answered("CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n")
    expect(connect.head).toMatch(/^HTTP\/1\.1 404 /)
    expect(connect.body).toEqual({ error: { code: "not_found", message: "no such route" } })
  })

  it("reads a declared body somewhat over the limit before its 413, so a client still sending it hears the answer", async () => {
    const t = await host.tenant()
    // Answering and closing at once made about every other fetch of a client in another
    // process fail with EPIPE while it still wrote the body, before it could read the 413.
    const { url, socket, received, closed } = rawConnection()
    socket.write([
      "POST /v1/api-keys HTTP/1.1", `host: ${url.host}`, `authorization: Bearer ${t.apiKey}`,
      "content-type: application/json", `content-length: ${12 * 1024 * 1024}`, "", ""
    ].join("\r\n"))
    const megabyte = Buffer.alloc(1024 * 1024, 0x20)
    socket.write(megabyte)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Nothing answered, nothing closed, while the rest is still to come.
    expect([received(), socket.destroyed]).toEqual(["", false])
    for (let i = 1; i < 12; i++) socket.write(megabyte)
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 413 /)
    expect(received().toLowerCase()).toContain("connection: close")
    expect(received()).toContain("FST_ERR_CTP_BODY_TOO_LARGE")
  })

  it("reads an upload declared far over the limit before its 413, so a client sending a large file hears the answer", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "oversized", label: { en: "Oversized" } } })
    const lamp = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Lamp" } })
    // A client posting a 256 MiB file as FormData: closing at once made its write fail with EPIPE.
    const megabytes = 256
    const { url, socket, received, closed } = rawConnection()
    socket.write([
      `POST /v1/products/${lamp.json.id}/media HTTP/1.1`, `host: ${url.host}`, `authorization: Bearer ${t.apiKey}`,
      "content-type: multipart/form-data; boundary=big", `content-length: ${megabytes * 1024 * 1024}`, "", ""
    ].join("\r\n"))
    const megabyte = Buffer.alloc(1024 * 1024, 0x20)
    socket.write(megabyte)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect([received(), socket.destroyed]).toEqual(["", false])
    for (let i = 1; i < megabytes && !socket.destroyed; i++) {
      if (!socket.write(megabyte)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), closed])
    }
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 413 /)
    expect(received()).toContain("FST_ERR_CTP_BODY_TOO_LARGE")
  })

  it("answers a refused body whose rest does not come within 2 s, closing the connection", async () => {
    const t = await host.tenant()
    const { url, socket, received, closed } = rawConnection()
    // A 415 of 1000 bytes declared, of which 10 are sent: it waited for the rest forever, and
    // this test with it, until its time ran out.
    socket.write(["POST /v1/brands HTTP/1.1", `host: ${url.host}`, `authorization: Bearer ${t.apiKey}`, "content-type: text/plain", "content-length: 1000", "", "0123456789"].join("\r\n"))
    await closed
    expect(received()).toMatch(/^HTTP\/1\.1 415 /)
    expect(received().toLowerCase()).toContain("connection: close")
  })

  it("answers a chunked body over the limit with 413, and types other than application/json with 415", async () => {
    const t = await host.tenant()
    // Written in 1 MiB chunks with no Content-Length, until the answer comes.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${host.baseUrl}/v1/brands`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.apiKey}`, "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        let body = ""
        res.on("data", (c: Buffer) => (body += c.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      })
      // The server stops reading once it answers: the rest of the upload hits a closed socket.
      req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)))
      let answered = false
      req.on("response", () => (answered = true))
      req.write("{\"name\":\"")
      const chunk = "x".repeat(1024 * 1024)
      const more = (left: number) => {
        if (answered) return
        if (left === 0) return req.end("\"}")
        req.write(chunk, () => more(left - 1))
      }
      more(12)
    })
    expect([chunked.status, JSON.parse(chunked.body).error.code]).toEqual([413, "FST_ERR_CTP_BODY_TOO_LARGE"])
    for (const type of ["application/merge-patch+json", "application/vnd.api+json; charset=utf-8", "application/json-seq"]) {
      const r = await t.req("POST", "/v1/brands", { rawBody: JSON.stringify({ name: type }), headers: { "content-type": type } })
      expect([type, r.status, r.json.error.code]).toEqual([type, 415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    }
    const charset = await t.req("POST", "/v1/brands", { rawBody: JSON.stringify({ name: "Charset" }), headers: { "content-type": "Application/JSON; charset=utf-8" } })
    expect(charset.status).toBe(201)
    const refused = [
      { "content-type": "application/json", "content-encoding": "gzip" },
      { "content-type": "application/json", "content-encoding": "br" },
      { "content-type": "application/json; charset=utf-16" },
      { "content-type": "application/json; charset=\"iso-8859-1\"" }
    ]
    for (const headers of refused) {
      const r = await t.req("POST", "/v1/brands", { rawBody: JSON.stringify({ name: "Encoded" }), headers })
      expect([headers, r.status, r.json.error.code]).toEqual([headers, 415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    }
    const identity = await t.req("POST", "/v1/brands", { rawBody: JSON.stringify({ name: "Identity" }), headers: { "content-type": "application/json; charset=UTF8", "content-encoding": "identity" } })
    expect(identity.status).toBe(201)
    expect((await t.req("GET", "/v1/brands")).json.map((b: { name: string }) => b.name)).not.toContain("Encoded")
  })

  it("answers a multipart form sent to a JSON route with 415, well-formed or not, and writes nothing", async () => {
    const t = await host.tenant()
    const key = await t.req("POST", "/v1/api-keys", { body: { name: "Kept" } })
    const form = "--b\r\ncontent-disposition: form-data; name=\"name\"\r\n\r\nRenamed by a form\r\n--b--\r\n"
    const multipart = { "content-type": "multipart/form-data; boundary=b" }
    const renamed = await t.req("PATCH", `/v1/api-keys/${key.json.id}`, { rawBody: form, headers: multipart })
    expect([renamed.status, renamed.json.error.code]).toEqual([415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    expect((await t.req("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === key.json.id).name).toBe("Kept")
    const bodiless = await t.req("POST", "/v1/brands", { headers: multipart })
    expect([bodiless.status, bodiless.json.error.code]).toEqual([415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    const brand = await t.req("POST", "/v1/brands", { body: { name: "Not deleted by a form" } })
    for (const [method, path] of [["POST", "/v1/brands"], ["PATCH", "/v1/organizations/me"], ["DELETE", `/v1/brands/${brand.json.id}`], ["POST", `/v1/api-keys/${key.json.id}/revoke`]] as const) {
      const r = await t.req(method, path, { rawBody: "not a form", headers: { "content-type": "multipart/form-data; boundary=x" } })
      expect([method, path, r.status, r.json.error.code]).toEqual([method, path, 415, "FST_ERR_CTP_INVALID_MEDIA_TYPE"])
    }
    expect((await t.req("GET", `/v1/brands/${brand.json.id}`)).status).toBe(200)
    expect((await t.req("GET", "/v1/api-keys")).json.find((k: { id: string }) => k.id === key.json.id).status).toBe("active")
  })

  it("answers an empty multipart body on a DELETE that reads a body with 415, not 500, and deletes nothing", async () => {
    const t = await host.tenant()
    const path = `/v1/organizations/${t.organization.id}`
    const r = await t.sreq("DELETE", path, { headers: { "content-type": "multipart/form-data; boundary=x" } })
    expect([r.status, r.json]).toEqual([415, { error: { code: "FST_ERR_CTP_INVALID_MEDIA_TYPE", message: expect.any(String) } }])
    expect((await t.req("GET", "/v1/organizations/me")).status).toBe(200)
  })

  it("refuses a body nested deeper than 64 levels with 422 before checking it, and takes 64", async () => {
    const t = await host.tenant()
    const nested = (depth: number) => "[".repeat(depth - 1) + "1" + "]".repeat(depth - 1)
    for (const depth of [65, 100_000]) {
      const body = `{"name":"Deep","attributes":{"x":[{"locale":null,"channel":null,"value":${nested(depth - 3)}}]},"note":"\\u0000"}`
      const r = await t.req("POST", "/v1/brands", { rawBody: body, headers: { "content-type": "application/json" } })
      expect([depth, r.status, r.json.error.details.issues[0].code]).toEqual([depth, 422, "too_deep"])
      expect(r.json.error.message).toBe("must not nest arrays and objects deeper than 64 levels")
    }
    // Brackets inside strings do not count.
    const ok = await t.req("POST", "/v1/brands", { rawBody: `{"name":"${"[".repeat(100)}","ignored":${nested(63)}}`, headers: { "content-type": "application/json" } })
    expect(ok.status).toBe(201)
  })

  it("names every issue of a body at once, each after its path, and a body that is no object in words", async () => {
    const t = await host.tenant()
    const missing = await t.req("POST", "/v1/products", { body: {} })
    expect([missing.status, missing.json.error.message]).toEqual([422, "familyId: is missing; name: is missing"])
    const bad = await t.req("POST", "/v1/products", { body: { familyId: "x", name: "", slug: "BAD", tags: [1] } })
    expect(bad.json.error.details.issues.map((i: { path: Array<string | number> }) => i.path)).toEqual([["familyId"], ["name"], ["slug"], ["tags", 0]])
    const category = await t.req("POST", "/v1/categories", { body: { name: "", position: 1.5, parentId: "nope" } })
    expect(category.json.error.details.issues.map((i: { path: Array<string | number> }) => i.path)).toEqual([["name"], ["parentId"], ["position"]])
    const array = await t.req("POST", "/v1/products", { body: [] })
    expect([array.status, array.json.error.details.issues]).toEqual([422, [{ path: [], message: "Expected an object, actual []", code: "invalid_type" }]])
    const bulk = await t.req("POST", "/v1/products/bulk", { body: { items: [{ op: "create" }, { op: "create", familyId: "nope", name: "", status: "bogus" }] } })
    expect(bulk.json.results[0].error.message).toMatch(/^familyId: is missing/)
    expect(bulk.json.results[1].error.details.issues.map((i: { path: Array<string> }) => i.path)).toEqual([["familyId"], ["name"], ["status"]])
    const tags = await t.req("POST", "/v1/products", { body: { familyId: "0194c5a0-0000-7000-8000-000000000000", name: "x", tags: "x" } })
    expect(tags.json.error.message).toBe('tags: Expected an array, actual "x"')
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "messages", label: { en: "Messages" } } })
    const rule = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "x", attributes: { nosuch: [] } } })
    expect(rule.json.error.message).toMatch(/^attributes\.nosuch: /)
  })

  it("answers U+0000 in the query with 422, and odd request lines with 404, not a failure", async () => {
    const t = await host.tenant()
    for (const [target, expected] of [["//a:99999/v1/products?q=%00", 404], ["//[/v1/products?q=%00", 404], ["/v1/products?q=%00", 422]] as const) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(host.baseUrl, { method: "GET", path: target, headers: { authorization: `Bearer ${t.apiKey}` } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on("error", reject)
        req.end()
      })
      expect([target, status]).toEqual([target, expected])
    }
  })

  it("answers schema failures with 422 validation_failed and issues naming the path", async () => {
    const t = await host.tenant()
    const r = await t.sreq("POST", "/v1/api-keys", { body: { expiresAt: "next tuesday" } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe("validation_failed")
    const paths = r.json.error.details.issues.map((i: { path: Array<string> }) => i.path.join("."))
    expect(paths).toEqual(expect.arrayContaining(["name"]))
    for (const issue of r.json.error.details.issues) {
      expect(issue).toEqual({ path: expect.any(Array), message: expect.any(String), code: expect.any(String) })
    }
  })

  it("takes slugs of up to 255 characters and codes of up to 100, and refuses longer ones with 422 naming the field", async () => {
    const t = await host.tenant()
    const writes = (slug: string, code: string) => [
      ["/v1/brands", { name: `Brand ${slug.length}`, slug }, "slug"],
      ["/v1/categories", { name: "Category", slug }, "slug"],
      ["/v1/attribute-families", { code, label: { en: "Family" } }, "code"],
      ["/v1/attributes", { code, label: { en: "Attribute" }, type: "text" }, "code"],
      ["/v1/attribute-groups", { code, label: { en: "Group" } }, "code"]
    ] as const
    for (const [path, body, field] of writes(`s${"x".repeat(255)}`, `c${"x".repeat(100)}`)) {
      const r = await t.req("POST", path, { body })
      expect([path, r.status, r.json.error?.details.issues[0].path]).toEqual([path, 422, [field]])
    }
    for (const [path, body] of writes("x".repeat(255), "c".repeat(100))) {
      expect([path, (await t.req("POST", path, { body })).status]).toEqual([path, 201])
    }
  })

  it("takes names of up to 255 characters and refuses longer ones with 422 naming the field", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "named", label: { en: "Named" } } })
    const writes = (name: string) => [
      ["POST", "/v1/products", { familyId: family.json.id, name }],
      ["POST", "/v1/categories", { name }],
      ["POST", "/v1/brands", { name }],
      ["POST", "/v1/api-keys", { name }],
      ["PATCH", "/v1/organizations/me", { name }]
    ] as const
    for (const [method, path, body] of writes("名".repeat(256))) {
      const r = await t.req(method, path, { body })
      expect([path, r.status, r.json.error?.details.issues[0].path]).toEqual([path, 422, ["name"]])
    }
    for (const [method, path, body] of writes("名".repeat(255))) {
      expect([path, (await t.req(method, path, { body })).status]).toEqual([path, method === "POST" ? 201 : 200])
    }
  })

  it("refuses text no database can store alike (U+0000, unpaired surrogates) in bodies and queries with 422 naming the path", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "nul_test", label: { en: "Nul" } } })
    const post = (rawBody: string, path = "/v1/products") => t.req("POST", path, { rawBody, headers: { "content-type": "application/json" } })
    const paths = (r: { json: { error: { details: { issues: Array<{ path: Array<string | number> }> } } } }) =>
      r.json.error.details.issues.map((i) => i.path)

    const nul = await post(`{"familyId": "${family.json.id}", "name": "a\\u0000b"}`)
    expect([nul.status, nul.json.error.code, paths(nul)]).toEqual([422, "validation_failed", [["name"]]])
    const key = await post(`{"familyId": "${family.json.id}", "name": "k", "attributes": {"a\\u0000": []}}`)
    expect(paths(key)).toEqual([["attributes", "a\u0000"]])
    expect((await t.req("GET", "/v1/products?q=ok")).json.data).toEqual([])

    // The items of a bulk request stand alone: only the item holding such text fails, at its own path.
    const bulk = await post(
      `{"items": [{"op": "create", "familyId": "${family.json.id}", "name": "first"}, {"op": "create", "familyId": "${family.json.id}", "name": "x", "tags": ["\\ud800"]}, ` +
        `{"op": "create", "familyId": "${family.json.id}", "name": "a\\u0000"}, "\\u0000", {"op": "create", "familyId": "${family.json.id}", "name": "last"}]}`,
      "/v1/products/bulk"
    )
    const results = bulk.json.results as Array<{ ok: boolean; index: number; id?: string; error?: { code: string; details: { issues: Array<{ path: Array<string | number>; code: string }> } } }>
    expect([bulk.status, results.map((r) => [r.index, r.ok])]).toEqual([200, [[0, true], [1, false], [2, false], [3, false], [4, true]]])
    expect(results.filter((r) => !r.ok).map((r) => [r.error?.code, r.error?.details.issues.map((i) => [i.path, i.code])])).toEqual([
      ["validation_failed", [[["tags", 0], "invalid_character"]]],
      ["validation_failed", [[["name"], "invalid_character"]]],
      ["validation_failed", [[[], "invalid_character"]]]
    ])
    expect((await t.req("GET", `/v1/products/${results[4]?.id}`)).json.name).toBe("last")
    // Outside the items, such text still refuses the whole request.
    const outside = await post(`{"note": "\\u0000", "items": [{"op": "create", "familyId": "${family.json.id}", "name": "never"}]}`, "/v1/products/bulk")
    expect([outside.status, paths(outside)]).toEqual([422, [["note"]]])
    expect((await t.req("GET", "/v1/products?slug=never")).json.data).toEqual([])

    // An escaped backslash before `u0000` is six ordinary characters, and a surrogate pair is one character.
    const plain = await post(`{"familyId": "${family.json.id}", "name": "a\\\\u0000 \\ud83d\\ude00"}`)
    expect([plain.status, plain.json.name]).toEqual([201, "a\\u0000 \u{1F600}"])

    const query = await t.req("GET", "/v1/products?slug=%00&q=fine")
    expect([query.status, paths(query)]).toEqual([422, [["slug"]]])
    expect((await t.req("GET", "/v1/products/facets?brand=a%00")).status).toBe(422)
    // The router reads the query after a `;` or `#` as after a `?`: so are these checks (on Postgres, a 500 before).
    const semicolon = await t.req("GET", "/v1/brands;q=a%00b")
    expect([semicolon.status, paths(semicolon)]).toEqual([422, [["q"]]])
    const proto = await t.req("GET", "/v1/products;__proto__=1")
    expect([proto.status, paths(proto)]).toEqual([422, [["__proto__"]]])
    expect((await t.req("GET", "/v1/products;limit=1")).json.limit).toBe(1)
  })

  it("refuses a query key or value whose escapes do not decode with 422, after the credentials", async () => {
    const t = await host.tenant()
    const issues = async (query: string) => {
      const r = await t.req("GET", `/v1/products?${query}`)
      return [r.status, r.status === 422 ? r.json.error.details.issues : []]
    }
    const undecodable = (key: string) => ({ path: [key], message: "must be percent-encoded UTF-8", code: "invalid_character" })
    expect(await issues("slug=caf%E9")).toEqual([422, [undecodable("slug")]])
    expect(await issues("q=%ZZ&tag=ok")).toEqual([422, [undecodable("q")]])
    expect(await issues("b%FF=1")).toEqual([422, [undecodable("b%FF")]])
    expect(await issues("slug=caf%C3%A9&q=a+b")).toEqual([200, []])
    expect((await host.request("GET", "/v1/products?slug=caf%E9")).status).toBe(401)
  })

  it("answers a malformed uuid in a path with 422", async () => {
    const t = await host.tenant()
    const r = await t.sreq("PATCH", "/v1/api-keys/not-a-uuid", { body: { name: "x" } })
    expect(r.status).toBe(422)
    expect(r.json.error.code).toBe("validation_failed")
    const withBadBody = await t.req("PATCH", "/v1/categories/not-a-uuid", { body: { name: 5 } })
    expect([withBadBody.status, withBadBody.json.error.details.issues.map((i: { path: Array<string> }) => i.path)]).toEqual([422, [["id"]]])
  })

  it("answers an id longer than 100 characters as any malformed one, not as an unknown route", async () => {
    const t = await host.tenant()
    for (const path of [`/v1/products/${"a".repeat(101)}`, `/v1/brands/${"a".repeat(5000)}`, `/v1/products/${"a".repeat(300)}/variants`]) {
      const r = await t.req("GET", path)
      expect([path.length, r.status, r.json.error.details?.issues]).toEqual([path.length, 422, [{ path: ["id"], message: "must be a UUID", code: "invalid" }]])
      expect([path.length, (await host.request("GET", path)).status]).toEqual([path.length, 401])
    }
  })

  it("answers an id whose percent-escapes do not decode with 422 on a route that exists, after the credentials and the body", async () => {
    const t = await host.tenant()
    for (const path of ["/v1/products/%ZZ", "/v1/products/%FF/variants", "/v1/brands/%"]) {
      const r = await t.req("GET", path)
      expect([path, r.status, r.json.error.message]).toEqual([path, 422, "the path must be percent-encoded UTF-8"])
      expect([path, (await host.request("GET", path)).status]).toEqual([path, 401])
    }
    const badBody = await t.req("PATCH", "/v1/products/%ZZ", { rawBody: "{bad", headers: { "content-type": "application/json" } })
    expect([badBody.status, badBody.json.error.code]).toEqual([400, "FST_ERR_CTP_INVALID_JSON_BODY"])
    expect((await t.req("GET", "/v1/products/%ZZ/nothing")).status).toBe(404)
  })
})

describe("keep-alive after an error", () => {
  /** Sends each request in turn on one connection, each after the whole answer to the one before. */
  const onOneConnection = async (requests: ReadonlyArray<string>) => {
    const { socket, received, closed } = rawConnection()
    let isClosed = false
    void closed.then(() => (isClosed = true))
    const answers: Array<{ head: string; body: string }> = []
    let consumed = 0
    for (const request of requests) {
      socket.write(request)
      const answer = await new Promise<{ head: string; body: string }>((resolve, reject) => {
        const check = () => {
          const text = received().slice(consumed)
          const end = text.indexOf("\r\n\r\n")
          if (end >= 0) {
            const head = text.slice(0, end)
            const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
            if (text.length >= end + 4 + length) {
              consumed += end + 4 + length
              return resolve({ head, body: text.slice(end + 4, end + 4 + length) })
            }
          }
          if (isClosed) return reject(new Error(`closed after ${JSON.stringify(received())}`))
          setTimeout(check, 5)
        }
        check()
      })
      answers.push(answer)
    }
    socket.destroy()
    return answers
  }

  it("keeps the connection of a bodyless request open after a 401, 404 or 422, and answers the next request on it", async () => {
    const t = await host.tenant()
    const get = (path: string, auth?: string) =>
      [`GET ${path} HTTP/1.1`, "host: x", ...(auth === undefined ? [] : [`authorization: Bearer ${auth}`]), "", ""].join("\r\n")
    const answers = await onOneConnection([
      get("/v1/products"),
      get("/v1/no-such-thing", t.apiKey),
      get("/v1/products?colour=red", t.apiKey),
      get(`/v1/products/${randomUUID()}`, t.apiKey),
      ["DELETE /v1/brands/" + randomUUID() + " HTTP/1.1", "host: x", `authorization: Bearer ${t.apiKey}`, "content-length: 0", "", ""].join("\r\n"),
      ["OPTIONS /v1/products HTTP/1.1", "host: x", `authorization: Bearer ${t.apiKey}`, "", ""].join("\r\n"),
      ["POST /v1/brands HTTP/1.1", "host: x", "content-length: 0", "", ""].join("\r\n"),
      get("/healthz")
    ])
    expect(answers.map((a) => [Number(a.head.split(" ")[1]), /^connection: close/im.test(a.head)])).toEqual([
      [401, false], [404, false], [422, false], [404, false], [404, false], [404, false], [401, false], [200, false]
    ])
    expect(JSON.parse(answers[7]?.body ?? "").status).toBe("ok")
  })
})

describe("Location of what a 201 made", () => {
  it("names the path its GET reads, on every create the document says carries it, and only there", async () => {
    const t = await host.tenant()
    const family = await t.req("POST", "/v1/attribute-families", { body: { code: "shirts", label: { en: "Shirts" } } })
    const contentFamily = await t.req("POST", "/v1/attribute-families", { body: { code: "pages", label: { en: "Pages" }, entityKind: "content" } })
    const product = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Shirt" } })
    const other = await t.req("POST", "/v1/products", { body: { familyId: family.json.id, name: "Other" } })
    const modifier = await t.req("POST", "/v1/modifiers", { body: { code: "engraving", name: "Engraving", type: "text" } })
    const form = new FormData()
    form.append("file", new Blob(["hello"], { type: "text/plain" }), "hello.txt")
    const upload = await fetch(`${host.baseUrl}/v1/products/${product.json.id}/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.apiKey}` },
      body: form
    })
    const made = [
      ["/v1/attribute-families", family],
      ["/v1/attribute-families", contentFamily],
      ["/v1/products", product],
      ["/v1/modifiers", modifier],
      ["/v1/products/{id}/media", { status: upload.status, headers: upload.headers, json: await upload.json() }],
      ["/v1/attributes", await t.req("POST", "/v1/attributes", { body: { code: "color", label: { en: "Color" }, type: "text" } })],
      ["/v1/categories", await t.req("POST", "/v1/categories", { body: { name: "Tops" } })],
      ["/v1/brands", await t.req("POST", "/v1/brands", { body: { name: "Acme" } })],
      ["/v1/content-pages", await t.req("POST", "/v1/content-pages", { body: { familyId: contentFamily.json.id, title: "About" } })],
      ["/v1/products/{id}/variants", await t.req("POST", `/v1/products/${product.json.id}/variants`, { body: { sku: "S-1", name: "Small" } })],
      ["/v1/connectors", await t.req("POST", "/v1/connectors", {
        body: { type: "headless", name: "hook", config: { destination_url: "http://127.0.0.1:9/hook", secret: "0123456789abcdef" } }
      })],
      ["/v1/attribute-groups", await t.req("POST", "/v1/attribute-groups", { body: { code: "basics", label: { en: "Basics" } } })],
      ["/v1/api-keys", await t.req("POST", "/v1/api-keys", { body: { name: "ci" } })],
      ["/v1/products/{id}/relationships", await t.req("POST", `/v1/products/${product.json.id}/relationships`, {
        body: { relatedProductId: other.json.id, type: "related" }
      })],
      ["/v1/products/{id}/modifiers", await t.req("POST", `/v1/products/${product.json.id}/modifiers`, { body: { modifierId: modifier.json.id } })]
    ] as const
    const spec = (await host.request("GET", "/openapi.json")).json
    const located: Array<string> = []
    for (const [path, answer] of made) {
      expect([path, answer.status]).toEqual([path, 201])
      const documented = spec.paths[path].post.responses["201"].headers?.Location !== undefined
      const location = answer.headers.get("location")
      expect([path, location !== null]).toEqual([path, documented])
      if (location === null) continue
      located.push(path)
      const read = await t.req("GET", location)
      expect([path, read.status, read.json.id]).toEqual([path, 200, answer.json.id])
    }
    expect(located).toHaveLength(11)
    // Every 201 the document lists is one of those made here.
    const created = Object.entries(spec.paths as Record<string, Record<string, any>>)
      .filter(([, methods]) => methods.post?.responses["201"]?.headers?.Location !== undefined)
      .map(([path]) => path)
    expect(created.sort()).toEqual([...new Set(located)].sort())
  })
})
