import { SqlClient } from "@effect/sql"
import { assert, expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer } from "effect"
import type { Storage } from "../../adapters/sql/SqlStorage.js"
import { AuditLog } from "../../core/events/AuditLog.js"
import { Modifiers } from "../../core/modifiers/Modifiers.js"
import { CurrentTenant } from "../../core/tenancy/Actor.js"
import { catalogOver, newTenant } from "../support/Catalog.js"
import { eventCount, ONE_DELETION, raced, racedChanges } from "../support/CatalogFixtures.js"
import { steppingClock } from "../support/SteppingClock.js"

const failsWith = (exit: Exit.Exit<unknown, unknown>, tag: string) => {
  assert(Exit.isFailure(exit))
  expect(JSON.stringify(exit.cause)).toContain(tag)
}

/** Modifiers against one storage adapter. */
export const modifiersSuite = <E>(name: string, storage: Layer.Layer<Storage | SqlClient.SqlClient, E>) =>
  layer(catalogOver(storage), { timeout: 60_000 })(name, (it) => {
    it.effect("creates, lists, updates and deletes a modifier; codes are unique per organization, also when changed", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const other = yield* newTenant
        const modifiers = yield* Modifiers
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const created = yield* as(modifiers.create({ code: "gift_box", name: "Gift box", type: "select", options: [{ value: "small" }, { value: "large", priceAdjustment: { amount_cents: 250, currency: "EUR" } }] }))
        expect(created).toMatchObject({ code: "gift_box", type: "select", organizationId: tenant.organizationId })
        failsWith(yield* Effect.exit(as(modifiers.create({ code: "gift_box", name: "Again", type: "text" }))), "Conflict")
        // Another organization may use the same code.
        const theirs = yield* Effect.provideService(modifiers.create({ code: "gift_box", name: "Theirs", type: "text" }), CurrentTenant, other.tenant)
        expect((yield* as(modifiers.list)).map((m) => m.id)).toEqual([created.id])
        failsWith(yield* Effect.exit(as(modifiers.get(theirs.id))), "NotFound")

        const renamed = yield* as(modifiers.update(created.id, { name: "Gift wrapping" }))
        expect(renamed.name).toBe("Gift wrapping")
        expect(renamed.options).toHaveLength(2)
        const note = yield* as(modifiers.create({ code: "note", name: "Note", type: "text" }))
        failsWith(yield* Effect.exit(as(modifiers.update(note.id, { code: "gift_box" }))), "Conflict")
        expect((yield* as(modifiers.update(note.id, { code: "gift_note" }))).code).toBe("gift_note")
        expect((yield* as(modifiers.get(note.id))).code).toBe("gift_note")
        yield* as(modifiers.remove(note.id))
        yield* as(modifiers.remove(created.id))
        failsWith(yield* Effect.exit(as(modifiers.get(created.id))), "NotFound")
        failsWith(yield* Effect.exit(as(modifiers.remove(created.id))), "NotFound")
      }))

    it.effect("stamps modifier.created with the instant the modifier was made", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const modifiers = yield* Modifiers
        const created = yield* Effect.provideService(modifiers.create({ code: "stamped", name: "Stamped", type: "text" }), CurrentTenant, tenant).pipe(
          Effect.withClock(steppingClock())
        )
        const audit = yield* Effect.provideService((yield* AuditLog).list({ entityId: created.id, limit: 50, offset: 0 }), CurrentTenant, tenant)
        expect(audit.data.map((e) => [e.name, e.createdAt])).toEqual([["modifier.created", created.createdAt]])
      }))

    it.effect("requires distinct options for choices and none for free values", () =>
      Effect.gen(function*() {
        const { tenant } = yield* newTenant
        const modifiers = yield* Modifiers
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        failsWith(yield* Effect.exit(as(modifiers.create({ code: "size", name: "Size", type: "select" }))), "ValidationFailed")
        failsWith(yield* Effect.exit(as(modifiers.create({ code: "size", name: "Size", type: "select", options: [{ value: "s" }, { value: "s" }] }))), "ValidationFailed")
        failsWith(yield* Effect.exit(as(modifiers.create({ code: "note", name: "Note", type: "text", options: [{ value: "x" }] }))), "ValidationFailed")
        const text = yield* as(modifiers.create({ code: "note", name: "Note", type: "text" }))
        failsWith(yield* Effect.exit(as(modifiers.update(text.id, { type: "select" }))), "ValidationFailed")
      }))

    it.effect("deletes a modifier once under concurrent deletions: one succeeds, the others find nothing", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const modifiers = yield* Modifiers
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        const made = yield* as(modifiers.create({ code: "raced", name: "Raced", type: "text" }))
        expect(yield* raced(as(modifiers.remove(made.id)))).toEqual(ONE_DELETION)
        expect(yield* eventCount(organization.id, "modifier.deleted")).toBe(1)
      }))

    it.effect("keeps every one of concurrent patches of one modifier, each recording only what it changed", () =>
      Effect.gen(function*() {
        const { organization, tenant } = yield* newTenant
        const modifiers = yield* Modifiers
        const as = <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.provideService(e, CurrentTenant, tenant)
        for (let round = 0; round < 3; round++) {
          const made = yield* as(modifiers.create({ code: `box_${round}`, name: "Box", type: "select", options: [{ value: "small" }] }))
          const options = [{ value: "small" }, { value: "large" }]
          const changes = yield* racedChanges(organization.id, "modifier.updated", [
            as(modifiers.update(made.id, { name: "Gift box" })),
            as(modifiers.update(made.id, { code: `gift_box_${round}` })),
            as(modifiers.update(made.id, { options }))
          ])
          expect(changes).toEqual(['["code"]', '["name"]', '["options"]', "[]", "[]", "[]"])
          expect(yield* as(modifiers.get(made.id))).toMatchObject({ code: `gift_box_${round}`, name: "Gift box", options })
        }
      }))
  })
