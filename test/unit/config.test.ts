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
      expect(Either.getLeft(key).pipe(Option.getOrThrow)).toContain("CATALOG_BOOTSTRAP_API_KEY")
    }))

  it.effect("reads lists and names the database", () =>
    Effect.gen(function*() {
      const c = Either.getOrThrow(yield* load({ CATALOG_WEBHOOK_ALLOWED_PRIVATE_ADDRESSES: "127.0.0.1/32, 10.0.0.0/8" }))
      expect(c.webhookAllowedPrivateAddresses).toEqual(["127.0.0.1/32", "10.0.0.0/8"])
      expect(databaseKind("sqlite::memory:")).toEqual({ _tag: "sqlite", filename: ":memory:" })
      expect(databaseKind("postgres://u@h/db")).toEqual({ _tag: "postgres", url: "postgres://u@h/db" })
    }))
})
