import { describe, expect, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestServices } from "effect"
import { holdDefinitions } from "../core/schema/DefinitionLock.js"
import { Families } from "../core/schema/Families.js"
import { UnitOfWork } from "../core/shared/UnitOfWork.js"
import { catalogOver } from "./support/Catalog.js"
import { inTenant, schemaFixture } from "./support/CatalogFixtures.js"
import { postgresAvailable, postgresStorage } from "./support/Postgres.js"

const available = await postgresAvailable()

describe.runIf(available)("postgres attribute definitions", () => {
  layer(catalogOver(postgresStorage), { timeout: 60_000 })("family attachments", (it) => {
    // They remake the index of the family's products, which a value write planned against the
    // family as it was would otherwise overwrite when it commits after them.
    it.effect("attaching and detaching wait for the value writes that hold the organization's definitions", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const uow = yield* UnitOfWork
        const { result } = yield* inTenant(Effect.gen(function*() {
          const { blurb, family } = yield* schemaFixture
          const families = yield* Families
          const organizationId = family.organizationId
          const holding = <E, R>(change: Effect.Effect<unknown, E, R>) =>
            Effect.gen(function*() {
              const held = yield* Deferred.make<void>()
              const release = yield* Deferred.make<void>()
              const writer = yield* Effect.fork(uow.tenant(organizationId, Effect.gen(function*() {
                yield* holdDefinitions(uow, organizationId)
                yield* Deferred.succeed(held, undefined)
                yield* Deferred.await(release)
              })))
              yield* Deferred.await(held)
              const changing = yield* Effect.fork(change)
              yield* Effect.sleep("300 millis")
              const doneWhileHeld = (yield* Fiber.poll(changing))._tag === "Some"
              yield* Deferred.succeed(release, undefined)
              yield* Fiber.join(writer)
              yield* Fiber.join(changing)
              return doneWhileHeld
            })
          return {
            detach: yield* holding(families.detach(family.id, blurb.id)),
            attach: yield* holding(families.attach(family.id, { attributeId: blurb.id }))
          }
        }))
        expect(result).toEqual({ detach: false, attach: false })
      })))
  })
})
