import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestHost, type TestHost, type TestTenant } from "../support/TestHost.js"

/**
 * Every operation of `/openapi.json`, called with bodies, query values and path ids drawn at
 * random from values that trip parsers and stores (nulls, wrong types, huge and negative
 * numbers, empty, long and unstorable text, UUIDs of the tenant's own records and of none,
 * nested lists and objects), over a catalog with one attribute of each type: whatever it is
 * sent, the service answers, and never with a 5xx. The seed is fixed so a run is reproducible;
 * `CATALOG_FUZZ_SEED` and `CATALOG_FUZZ_ROUNDS` try others.
 */
const SEED = Number(process.env.CATALOG_FUZZ_SEED ?? 20261127)
const ROUNDS = Number(process.env.CATALOG_FUZZ_ROUNDS ?? 10)

const TYPES = ["text", "textarea", "richtext", "number", "decimal", "boolean", "date", "datetime", "select", "multiselect", "reference", "media", "measurement", "url", "email", "json", "money", "tags", "file"]

let host: TestHost
beforeAll(async () => {
  host = await startTestHost()
})
afterAll(() => host.close())

/** A value as a query string holds it; a lone surrogate, which has no UTF-8, as the bytes a client could still send. */
const encoded = (value: unknown) => {
  try {
    return encodeURIComponent(String(value))
  } catch {
    return "%ED%A0%80"
  }
}

/** A linear congruential generator: the same seed draws the same requests. */
const generator = (seed: number) => {
  let state = seed
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n
  }
}

describe("random requests", () => {
  it("are all answered, none with a 5xx", async () => {
    const t: TestTenant = await host.tenant()
    const family = (await t.req("POST", "/v1/attribute-families", { body: { code: "fuzz", label: { en: "Fuzz" } } })).json
    const attributes: Array<{ id: string; code: string; type: string }> = []
    for (const type of TYPES) {
      const options = type === "select" || type === "multiselect" ? { options: ["x", "y"] } : null
      const attribute = (await t.req("POST", "/v1/attributes", { body: { code: `a_${type}`, label: {}, type, isLocalizable: type === "text", validation: options } })).json
      attributes.push(attribute)
      await t.req("POST", `/v1/attribute-families/${family.id}/attributes`, { body: { attributeId: attribute.id } })
    }
    const category = (await t.req("POST", "/v1/categories", { body: { name: "Lamps", slug: "lamps" } })).json
    const brand = (await t.req("POST", "/v1/brands", { body: { name: "Acme" } })).json
    const product = (await t.req("POST", "/v1/products", { body: { familyId: family.id, name: "Lamp" } })).json
    const spec = (await host.request("GET", "/openapi.json")).json

    const draw = generator(SEED)
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[draw(xs.length)] as A
    const odd = (): unknown =>
      pick<unknown>([
        null, true, 0, -1, 1e308, -0, 1.5, 2 ** 53, "", " ", "x".repeat(300), "\u0000", "\ud800", "🦄", "<p>", "NaN", "-1",
        "2026-01-01", "2026-13-45T00:00:00Z", "0192f5a8-9c3e-7000-8000-000000000001", product.id, family.id, category.id, brand.id,
        [], [null], [1, "a"], {}, { a: 1 }, { locale: null, channel: null, value: null }
      ])
    const someValue = () => pick<unknown>([odd(), { amount_cents: odd(), currency: odd() }, { amount: odd(), unit: odd() }, [odd(), odd()], "x", "12.5", 3])
    const someAttributes = () =>
      Object.fromEntries(attributes.filter(() => draw(3) === 0).map((a) => [
        a.code,
        draw(5) === 0 ? odd() : [{ locale: draw(4) === 0 ? odd() : null, channel: draw(5) === 0 ? odd() : null, value: someValue() }]
      ]))
    const mutated = (body: Record<string, unknown>) => {
      const out: Record<string, unknown> = { ...body }
      for (const key of Object.keys(out)) if (draw(4) === 0) out[key] = odd()
      if (draw(3) === 0) out[`extra${draw(5)}`] = odd()
      return out
    }
    const product_ = () => ({ familyId: family.id, name: `n${draw(1e6)}`, status: pick(["draft", "active", "archived"]), brandId: brand.id, categoryIds: [category.id], tags: ["a", "Ä b"], attributes: someAttributes() })
    const bodies: Record<string, () => unknown> = {
      "/v1/products": () => mutated(product_()),
      "/v1/products/{id}": () => mutated({ ...product_(), familyId: undefined }),
      "/v1/products/bulk": () => ({
        items: Array.from({ length: 1 + draw(4) }, () =>
          pick([
            () => mutated({ op: "create", ...product_() }),
            () => mutated({ op: "update", id: product.id, name: "x", attributes: someAttributes() }),
            () => ({ op: "delete", id: odd() })
          ])())
      })
    }
    const queries = () =>
      pick([
        `limit=${encoded(odd())}`,
        "offset=1",
        `sortBy=attribute&sortAttribute=${pick(attributes).code}`,
        `q=${encoded(pick(["lamp", "l%mp", "_", "\\", "ünïcödé", "a".repeat(200)]))}`,
        `tag=${encoded(pick(["a", "Ä b", "", "🦄"]))}`,
        "locale=en&channel=web",
        `filterAttribute=${pick(attributes).code}&filterMin=5`
      ])
    const idFor = (path: string) =>
      path.startsWith("/v1/attribute-families") ? family.id : path.startsWith("/v1/categories") ? category.id : path.startsWith("/v1/brands") ? brand.id : product.id

    const operations = Object.entries(spec.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>)
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })))
      // Deleting the organization would end the run.
      .filter((o) => !(o.method === "DELETE" && o.path.startsWith("/v1/organizations")))
    const fiveHundreds: Array<unknown> = []
    let sent = 0
    for (let round = 0; round < ROUNDS; round++) {
      for (const { method, path, operation } of operations) {
        const url = path.replace("{id}", idFor(path)).replace(/\{[^}]+\}/g, () => pick(["0192f5a8-9c3e-7000-8000-000000000009", attributes[0]!.id, "not-a-uuid"]))
        const fields = Object.keys(operation.requestBody?.content?.["application/json"]?.schema?.properties ?? {})
        const body = method === "GET" || method === "DELETE" ? undefined : (bodies[path]?.() ?? mutated(Object.fromEntries(fields.map((k) => [k, odd()]))))
        const r = await t.req(method, method === "GET" ? `${url}?${queries()}` : url, body === undefined ? {} : { body })
        sent++
        if (r.status >= 500) fiveHundreds.push({ method, url, body, status: r.status, answer: r.text.slice(0, 300) })
      }
    }
    // Every operation of the document was called, whatever CATALOG_FUZZ_ROUNDS says.
    expect([operations.length > 25, sent]).toEqual([true, ROUNDS * operations.length])
    expect(fiveHundreds).toEqual([])
  }, 120_000)
})
