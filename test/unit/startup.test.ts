import { MigrationError } from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, ConfigProvider, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { hostConfig } from "../../hosts/http/Config.js"
import { DatabaseTooNew, MigrationsNotRecorded } from "../../adapters/sql/Migrate.js"
import { describeStartupFailure } from "../../hosts/http/Startup.js"

const config = Effect.runSync(Effect.either(hostConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).pipe(
  Either.getOrThrow
)

describe("a start that fails on the outside world", () => {
  it("names DATABASE_URL when the database refuses a migration, with the database's reason", () => {
    const refused = new MigrationError({
      reason: "failed",
      message: "Migration \"1_tenancy\" failed",
      cause: new SqlError({ message: "Failed to execute statement", cause: new Error("permission denied to create role") })
    })
    expect(describeStartupFailure(Cause.die(refused), config)).toEqual(
      Option.some(
        "cannot start: DATABASE_URL: the database refused the migrations (Migration \"1_tenancy\" failed: permission denied to create role)"
      )
    )
  })

  it("names DATABASE_URL when the database was migrated by a newer version", () => {
    expect(describeStartupFailure(Cause.die(new DatabaseTooNew({ latest: 31, known: 27 })), config)).toEqual(
      Option.some(
        "cannot start: DATABASE_URL: the database was migrated by a newer version of the service (migration 31; this version knows up to 27)"
      )
    )
  })

  it("names DATABASE_URL when the database could not record the migrations", () => {
    expect(describeStartupFailure(Cause.die(new MigrationsNotRecorded({ latest: 20, known: 30 })), config)).toEqual(
      Option.some(
        "cannot start: DATABASE_URL: the database refused the migrations (the migrations could not be recorded: the database stays at migration 20, this version needs 30)"
      )
    )
  })

  it("keeps the trace of a migration that failed in the code", () => {
    const broken = new MigrationError({ reason: "import-error", message: "Default export was not an Effect for migration \"2_x\"" })
    expect(describeStartupFailure(Cause.die(broken), config)).toEqual(Option.none())
  })
})
