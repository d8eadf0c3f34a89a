import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeFacetCopies } from "../../adapters/sql/FacetCopies.js"
import { makeTurns } from "../../adapters/sql/Turns.js"

const copy = (size: number) => ({ size })

describe("facet copies in memory", () => {
  it("keep at most the organizations allowed, also when they have no products, dropping the least recently used", () => {
    const copies = makeFacetCopies({ maxProducts: 1_000, maxOrganizations: 3 })
    for (const id of ["a", "b", "c"]) copies.remember(id, copy(0))
    copies.remember("a", copy(0))
    copies.remember("d", copy(0))
    expect(copies.organizations()).toEqual(["c", "a", "d"])
    for (let i = 0; i < 100; i++) copies.remember(`o${i}`, copy(0))
    expect(copies.organizations()).toEqual(["o97", "o98", "o99"])
  })

  it("keep at most the products allowed over all organizations, but always the one just used", () => {
    const copies = makeFacetCopies({ maxProducts: 10, maxOrganizations: 100 })
    copies.remember("a", copy(4))
    copies.remember("b", copy(4))
    copies.remember("c", copy(4))
    expect(copies.organizations()).toEqual(["b", "c"])
    copies.remember("big", copy(50))
    expect(copies.organizations()).toEqual(["big"])
    copies.forget("big")
    expect(copies.get("big")).toBeUndefined()
  })
})

describe("turns per organization", () => {
  it.effect("let one in at a time and hold nothing for an organization once no one holds or waits for its turn", () =>
    Effect.gen(function*() {
      const turns = makeTurns()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(turns.inTurn("a", Deferred.await(release)))
      let secondRan = false
      const second = yield* Effect.fork(turns.inTurn("a", Effect.sync(() => { secondRan = true })))
      yield* Effect.yieldNow()
      expect(secondRan).toBe(false)
      expect(turns.keys()).toEqual(["a"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(secondRan).toBe(true)
      for (let i = 0; i < 1_000; i++) yield* turns.inTurn(`o${i}`, Effect.void)
      yield* Effect.exit(turns.inTurn("failing", Effect.fail("no")))
      expect(turns.keys()).toEqual([])
    }))
})
