import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OwnerConnection, ownerConnection } from "./support/OwnerConnection.js"
import { postgresAvailable } from "./support/Postgres.js"
import { postgresDatabase, type TestDatabase } from "./support/TestDatabase.js"
import { startTestHost, type TestHost, type TestTenant } from "./support/TestHost.js"

const available = await postgresAvailable()

/**
 * A brand's or category's deletion, or an attribute's deletion or new code, that waits for a
 * write to its products (a bulk batch, say) stamps them, and its event, with an instant after
 * that write's: a client reconciling with
 * `updatedSince=<the newest timestamp it saw>` then finds the products it changed. It used to
 * read the clock before it waited, so the products it committed last carried an older
 * `updatedAt` than the write before it.
 */
describe.runIf(available)("postgres: a deletion that waits for a write to its products", () => {
  let db: TestDatabase
  let host: TestHost
  let t: TestTenant
  let familyId: string
  let owner: OwnerConnection
  beforeAll(async () => {
    db = await postgresDatabase()
    host = await startTestHost({ databaseUrl: db.url })
    t = await host.tenant()
    familyId = (await t.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json.id
    owner = ownerConnection(db.url)
  }, 60_000)
  afterAll(async () => {
    await host?.close()
    await owner?.close()
    await db?.drop()
  })

  /**
   * Holds product `id`'s row from another connection, as a write in flight does, until the
   * answer is called: then stamps it with the instant of that moment, commits, and answers it.
   */
  const holdProduct = (id: string) =>
    owner.hold(
      (sql) => sql`select id from products where id = ${id} for update`,
      // Suspended: the instant is the one at which it runs, once let go, not the one it is built at.
      (sql) =>
        Effect.suspend(() => {
          const at = new Date().toISOString()
          return Effect.as(sql`update products set updated_at = ${at} where id = ${id}`, at)
        })
    )

  /** Answers once `statements` of the service wait for a lock (the row `holdProduct` holds, say). */
  const waitingForLocks = async (statements = 1) => {
    for (let waited = 0; ; waited++) {
      const rows = await db.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")
      if (Number(rows[0]?.n) >= statements) return
      if (waited > 400) throw new Error(`${statements} statements never waited for the locks held`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  for (const kind of ["brands", "categories"] as const) {
    it(`stamps the products a deletion of ${kind} changes, and its event, after the write it waited for`, async () => {
      const record = (await t.req("POST", `/v1/${kind}`, { body: { name: `Gone ${kind}` } })).json
      const link = kind === "brands" ? { brandId: record.id } : { categoryIds: [record.id] }
      const product = (await t.req("POST", "/v1/products", { body: { familyId, name: `Lamp ${kind}`, ...link } })).json
      const release = await holdProduct(product.id)
      const deletion = t.req("DELETE", `/v1/${kind}/${record.id}`)
      // The deletion waits for the row; the write holding it is stamped only once let go.
      await waitingForLocks()
      const stampedBefore = await release()
      expect((await deletion).status).toBe(204)
      const after = (await t.req("GET", `/v1/products/${product.id}`)).json
      expect(after.updatedAt >= stampedBefore).toBe(true)
      const event = (await t.req("GET", `/v1/audit-log?entity_id=${record.id}&action=deleted`)).json.data[0]
      expect(event.createdAt).toBe(after.updatedAt)
      const found = (await t.req("GET", `/v1/products?updatedSince=${encodeURIComponent(stampedBefore)}`)).json.data
      expect(found.map((p: { id: string }) => p.id)).toEqual([product.id])
    }, 30_000)
  }

  // An attribute's deletion or new code rewrites the products holding its values, as a brand's
  // deletion clears them: it too is stamped after the write it waited for.
  for (const change of ["deletion", "new code"] as const) {
    it(`stamps the products an attribute's ${change} changes, and its event, after the write it waited for`, async () => {
      const code = change === "deletion" ? "wattage" : "voltage"
      const attribute = (await t.req("POST", "/v1/attributes", { body: { code, label: {}, type: "number" } })).json
      const family = (await t.req("POST", "/v1/attribute-families", { body: { code: `${code}_lamps`, label: {} } })).json
      await t.req("POST", `/v1/attribute-families/${family.id}/attributes`, { body: { attributeId: attribute.id } })
      const product = (await t.req("POST", "/v1/products", {
        body: { familyId: family.id, name: `Lamp ${code}`, attributes: { [code]: [{ locale: null, channel: null, value: 60 }] } }
      })).json
      const release = await holdProduct(product.id)
      const write = change === "deletion"
        ? t.req("DELETE", `/v1/attributes/${attribute.id}`)
        : t.req("PATCH", `/v1/attributes/${attribute.id}`, { body: { code: `${code}_v2` } })
      await waitingForLocks()
      const stampedBefore = await release()
      expect((await write).status).toBe(change === "deletion" ? 204 : 200)
      const after = (await t.req("GET", `/v1/products/${product.id}`)).json
      expect(after.updatedAt >= stampedBefore).toBe(true)
      const event = (await t.req("GET", `/v1/audit-log?entity_id=${attribute.id}&action=${change === "deletion" ? "deleted" : "updated"}`)).json.data[0]
      expect(event.createdAt).toBe(after.updatedAt)
      const found = (await t.req("GET", `/v1/products?familyId=${family.id}&updatedSince=${encodeURIComponent(stampedBefore)}`)).json.data
      expect(found.map((p: { id: string }) => p.id)).toEqual([product.id])
    }, 30_000)
  }

  // The organization's deletion waits for the writes in flight (they hold its lock shared) and
  // exports what they left: it read the clock before it waited, so its export claimed an
  // `exportedAt` older than the `updatedAt` of rows in it.
  it("stamps an organization's export after the writes it waited for", async () => {
    const doomed = await host.tenant()
    const family = (await doomed.req("POST", "/v1/attribute-families", { body: { code: "lamps", label: {} } })).json
    const product = (await doomed.req("POST", "/v1/products", { body: { familyId: family.id, name: "Lamp" } })).json
    // Held as another write to the product holds it: the PATCH waits, holding its organization shared.
    const release = await owner.hold((sql) => sql`select pg_advisory_xact_lock(hashtextextended(${`product:${product.id}`}, 0))`)
    const rename = doomed.req("PATCH", `/v1/products/${product.id}`, { body: { name: "Lamp renamed" } })
    await waitingForLocks(1)
    const deletion = doomed.sreq("DELETE", `/v1/organizations/${doomed.organization.id}`, { body: { confirm: doomed.organization.slug } })
    await waitingForLocks(2)
    await release()
    const renamed = await rename
    expect(renamed.status).toBe(200)
    const deleted = await deletion
    expect(deleted.status).toBe(200)
    const exported = JSON.parse(readFileSync(join(host.config.dataDir, "blobs", deleted.json.exportKey), "utf8"))
    expect(exported.tables.products.map((p: { name: string }) => p.name)).toEqual(["Lamp renamed"])
    expect(exported.exportedAt >= renamed.json.updatedAt).toBe(true)
  }, 30_000)

  // A revocation read the clock before it waited for the key's row, so one that waited for a
  // rename committed with an older `updatedAt` than the rename's.
  it("stamps a key's revocation after a rename of it that it waited for", async () => {
    const key = (await t.req("POST", "/v1/api-keys", { body: { name: "doomed" } })).json
    // Held as a rename holds it: the key's lock, then its row, stamped once let go.
    const release = await owner.hold(
      (sql) => Effect.zipRight(
        sql`select pg_advisory_xact_lock(hashtextextended(${`api_key:${key.id}`}, 0))`,
        sql`select id from api_keys where id = ${key.id} for update`
      ),
      (sql) =>
        Effect.suspend(() => {
          const at = new Date().toISOString()
          return Effect.as(sql`update api_keys set name = 'renamed', updated_at = ${at} where id = ${key.id}`, at)
        })
    )
    const revocation = t.req("POST", `/v1/api-keys/${key.id}/revoke`)
    await waitingForLocks()
    const stampedBefore = await release()
    const revoked = await revocation
    expect(revoked.status).toBe(200)
    expect([revoked.json.name, revoked.json.updatedAt >= stampedBefore]).toEqual(["renamed", true])
  }, 30_000)

  // An update records its event even when it changes nothing and writes no row: a deletion that
  // took no lock could commit between its read and its commit, and the update's event followed
  // the deletion's.
  for (const kind of ["connector", "family", "attachment"] as const) {
    it(`deletes the ${kind} after an update of it that waits before it`, async () => {
      const made = kind === "connector"
        ? await t.req("POST", "/v1/connectors", {
          body: { name: "hook", type: "headless", config: { destination_url: "https://example.com/hook", secret: "s".repeat(32), events: ["product.*"] } }
        })
        : await t.req("POST", "/v1/attribute-families", { body: { code: `doomed_${kind}`, label: { en: "Doomed" } } })
      const attribute = (await t.req("POST", "/v1/attributes", { body: { code: `doomed_${kind}`, label: {}, type: "text" } })).json
      if (kind === "attachment") await t.req("POST", `/v1/attribute-families/${made.json.id}/attributes`, { body: { attributeId: attribute.id } })
      const path = {
        connector: `/v1/connectors/${made.json.id}`,
        family: `/v1/attribute-families/${made.json.id}`,
        attachment: `/v1/attribute-families/${made.json.id}/attributes/${attribute.id}`
      }[kind]
      const lock = `${kind === "connector" ? "connector" : "family"}:${made.json.id}`
      const release = await owner.hold((sql) => sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`)
      const update = t.req("PATCH", path, { body: { connector: { name: "hook" }, family: { label: { en: "Doomed" } }, attachment: { position: 0 } }[kind] })
      await waitingForLocks(1)
      const deletion = t.req("DELETE", path)
      await waitingForLocks(2)
      await release()
      expect([(await update).status, (await deletion).status]).toEqual([200, 204])
      const events = (await t.req("GET", `/v1/audit-log?entity_id=${made.json.id}`)).json.data.map((e: { action: string }) => e.action)
      expect(events).toEqual(kind === "attachment" ? ["deleted", "updated", "created", "created"] : ["deleted", "updated", "created"])
    }, 30_000)
  }
})
