import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { databaseKind, loadConfig } from "../../hosts/http/Config.js"

const load = (env: Record<string, string>) =>
  loadConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), Effect.either)

describe("configuration", () => {
  it.effect("has the documented defaults", () =>
    Effect.gen(function*() {
      const config = yield* load({})
      const c = Either.getOrThrow(config)
      expect(c).toMatchObject({
        port: 8080,
        host: "0.0.0.0",
        databaseUrl: "sqlite:./data/catalog.db",
        tenancy: "single",
        bootstrapOrgSlug: "default",
        dataDir: "./data",
        webhookAllowedPrivateAddresses: [],
        contentPagesEntitled: true,
        logLevel: "info"
      })
      expect(Option.isNone(c.serviceKey)).toBe(true)
      expect(Option.isNone(c.sessionSecret)).toBe(true)
    }))

  it.effect("stops with one line naming each bad variable", () =>
    Effect.gen(function*() {
      const bad = yield* load({ PORT: "eighty", CATALOG_TENANCY: "many", DATABASE_URL: "mysql://x" })
      const line = Either.getLeft(bad).pipe(Option.getOrThrow)
      expect(line.split("\n")).toHaveLength(1)
      expect(line).toContain("PORT")
      expect(line).toContain("CATALOG_TENANCY")
      expect(line).toContain("DATABASE_URL")
      const key = yield* load({ CATALOG_BOOTSTRAP_API_KEY: "not-a-key" })
      expect(Either.getLeft(key).pipe(Option.getOrThrow)).toBe(
        "invalid configuration: CATALOG_BOOTSTRAP_API_KEY: must be pim_ followed by 43 base64url characters"
      )
    }))

  it.effect("refuses empty secrets, which would let an empty header or key in", () =>
    Effect.gen(function*() {
      for (const name of ["CATALOG_SERVICE_KEY", "CATALOG_SESSION_SECRET"]) {
        const line = Either.getLeft(yield* load({ [name]: "" })).pipe(Option.getOrThrow)
        expect(line).toBe(`invalid configuration: ${name}: must not be empty (leave it unset to turn it off)`)
      }
      const c = Either.getOrThrow(yield* load({ CATALOG_SERVICE_KEY: "svc", CATALOG_SESSION_SECRET: "s" }))
      expect(Option.isSome(c.serviceKey) && Option.isSome(c.sessionSecret)).toBe(true)
    }))

  it.effect("refuses a service key no x-pim-service-key header could carry", () =>
    Effect.gen(function*() {
      // Node trims a header's surrounding spaces and tabs, refuses control characters in one, and
      // reads its bytes as Latin-1, where the variable is read as UTF-8: none of these could match.
      for (const key of ["svc ", " svc", "svc\t", "s\u0001vc", "s\nvc", "cl\u00e9", "\u20acuro"]) {
        const line = Either.getLeft(yield* load({ CATALOG_SERVICE_KEY: key })).pipe(Option.getOrThrow)
        expect([key, line]).toEqual([
          key,
          "invalid configuration: CATALOG_SERVICE_KEY: must be printable ASCII without spaces around it, as a header carries it"
        ])
      }
      const c = Either.getOrThrow(yield* load({ CATALOG_SERVICE_KEY: "a key, with spaces inside ~!" }))
      expect(Option.isSome(c.serviceKey)).toBe(true)
    }))

  it.effect("refuses a bootstrap admin email that is not an address", () =>
    Effect.gen(function*() {
      const line = Either.getLeft(yield* load({ CATALOG_BOOTSTRAP_ADMIN_EMAIL: "nope" })).pipe(Option.getOrThrow)
      expect(line).toBe("invalid configuration: CATALOG_BOOTSTRAP_ADMIN_EMAIL: must be an email address")
      const c = Either.getOrThrow(yield* load({ CATALOG_BOOTSTRAP_ADMIN_EMAIL: "owner@example.com" }))
      expect(c.bootstrapAdminEmail).toEqual(Option.some("owner@example.com"))
    }))

  it.effect("refuses an empty HOST or CATALOG_DATA_DIR, which would mean every interface or the current folder", () =>
    Effect.gen(function*() {
      for (const name of ["HOST", "CATALOG_DATA_DIR"]) {
        const line = Either.getLeft(yield* load({ [name]: "" })).pipe(Option.getOrThrow)
        expect(line).toBe(`invalid configuration: ${name}: must not be empty`)
      }
      const c = Either.getOrThrow(yield* load({ HOST: "127.0.0.1", CATALOG_DATA_DIR: "/srv/catalog" }))
      expect(c).toMatchObject({ host: "127.0.0.1", dataDir: "/srv/catalog" })
    }))

  it.effect("refuses a value of only whitespace, as an empty one, naming the variable", () =>
    Effect.gen(function*() {
      const strings = [
        "HOST", "DATABASE_URL", "CATALOG_BOOTSTRAP_ORG_SLUG", "CATALOG_BOOTSTRAP_API_KEY", "CATALOG_BOOTSTRAP_ADMIN_EMAIL",
        "CATALOG_DATA_DIR"
      ]
      for (const name of strings) {
        for (const [value, why] of [["", "must not be empty"], [" \t ", "must not be only whitespace"], ["\u00a0", "must not be only whitespace"]]) {
          const line = Either.getLeft(yield* load({ [name]: value! })).pipe(Option.getOrThrow)
          expect([name, value, line]).toEqual([name, value, `invalid configuration: ${name}: ${why}`])
        }
      }
      for (const name of ["CATALOG_SERVICE_KEY", "CATALOG_SESSION_SECRET"]) {
        const line = Either.getLeft(yield* load({ [name]: "   " })).pipe(Option.getOrThrow)
        expect(line).toBe(`invalid configuration: ${name}: must not be only whitespace (leave it unset to turn it off)`)
      }
      // The others are refused by their own checks, also naming the variable.
      for (const name of ["PORT", "CATALOG_TENANCY", "CATALOG_CONTENT_PAGES_ENTITLED", "LOG_LEVEL"]) {
        expect(Either.getLeft(yield* load({ [name]: "  " })).pipe(Option.getOrThrow)).toMatch(new RegExp(`^invalid configuration: ${name}: `))
      }
    }))

  it.effect("refuses a bootstrap slug that the API would refuse, also a longer one", () =>
    Effect.gen(function*() {
      for (const slug of ["Shop", "a".repeat(256)]) {
        const line = Either.getLeft(yield* load({ CATALOG_BOOTSTRAP_ORG_SLUG: slug })).pipe(Option.getOrThrow)
        expect(line).toBe("invalid configuration: CATALOG_BOOTSTRAP_ORG_SLUG: must match ^[a-z0-9-]+$ and be at most 255 characters")
      }
      const c = Either.getOrThrow(yield* load({ CATALOG_BOOTSTRAP_ORG_SLUG: "a".repeat(255) }))
      expect(c.bootstrapOrgSlug).toBe("a".repeat(255))
    }))

  it.effect("refuses bootstrap variables in multi-tenant mode, where no start would use them", () =>
    Effect.gen(function*() {
      const why = "only a single-tenant start uses it and CATALOG_TENANCY is multi: unset it"
      const bootstrap = {
        CATALOG_BOOTSTRAP_ORG_SLUG: "shop",
        CATALOG_BOOTSTRAP_API_KEY: `pim_${"k".repeat(43)}`,
        CATALOG_BOOTSTRAP_ADMIN_EMAIL: "owner@example.com"
      }
      for (const [name, value] of Object.entries(bootstrap)) {
        const line = Either.getLeft(yield* load({ CATALOG_TENANCY: "multi", [name]: value })).pipe(Option.getOrThrow)
        expect(line).toBe(`invalid configuration: ${name}: ${why}`)
      }
      const all = Either.getLeft(yield* load({ CATALOG_TENANCY: "multi", ...bootstrap })).pipe(Option.getOrThrow)
      expect(all).toBe(`invalid configuration: ${Object.keys(bootstrap).map((name) => `${name}: ${why}`).join("; ")}`)
      expect(Either.getOrThrow(yield* load({ CATALOG_TENANCY: "multi" }))).toMatchObject({ tenancy: "multi" })
      expect(Either.getOrThrow(yield* load({ CATALOG_TENANCY: "single", ...bootstrap }))).toMatchObject({
        bootstrapOrgSlug: "shop",
        bootstrapAdminEmail: Option.some("owner@example.com")
      })
    }))

  it.effect("reads lists and names the database", () =>
    Effect.gen(function*() {
      const c = Either.getOrThrow(yield* load({ CATALOG_WEBHOOK_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1/32, 10.0.0.0/8" }))
      expect(c.webhookAllowedPrivateAddresses).toEqual(["127.0.0.1/32", "10.0.0.0/8"])
      expect(databaseKind("sqlite::memory:")).toEqual({ _tag: "sqlite", filename: ":memory:" })
      expect(databaseKind("postgres://u@h/db")).toEqual({ _tag: "postgres", url: "postgres://u@h/db" })
    }))
})
