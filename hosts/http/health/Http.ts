import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Readiness } from "../../../core/shared/Readiness.js"
import { CatalogApi } from "../Api.js"
import { envelope } from "../Errors.js"
import { changelog, SERVICE_NAME, VERSION } from "../Release.js"

export const HealthLive = HttpApiBuilder.group(CatalogApi, "health", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok", service: SERVICE_NAME, version: VERSION }))
      .handle("readyz", () =>
        Effect.flatMap(readiness.check, (ok) =>
          ok ? Effect.succeed({ status: "ready" }) : Effect.fail(envelope("unavailable", "the database does not answer"))))
      .handle("changelog", () => Effect.succeed(changelog))
  }))
