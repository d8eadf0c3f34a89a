import { describe, expect, it } from "@effect/vitest"
import { makeHoldOff, UNANSWERED_BEFORE_HOLD_OFF } from "../../core/webhooks/HoldOff.js"

describe("holding off connectors whose receivers stopped answering", () => {
  it("holds a connector off after its third unanswered attempt in a row, and only for the hold-off", () => {
    const holdOff = makeHoldOff("30 seconds", "5 minutes")
    expect(UNANSWERED_BEFORE_HOLD_OFF).toBe(3)
    expect([holdOff.attempted("a", false, 0), holdOff.attempted("a", false, 1)]).toEqual([false, false])
    expect(holdOff.heldOff(1)).toEqual([])
    expect(holdOff.attempted("a", false, 2)).toBe(true)
    expect(holdOff.heldOff(2)).toEqual(["a"])
    expect(holdOff.heldOff(30_001)).toEqual(["a"])
    expect(holdOff.heldOff(30_002)).toEqual([])
  })

  it("forgets the streak on any answer, also an error status", () => {
    const holdOff = makeHoldOff("30 seconds", "5 minutes")
    holdOff.attempted("a", false, 0)
    holdOff.attempted("a", false, 0)
    holdOff.attempted("a", true, 0)
    expect([holdOff.attempted("a", false, 0), holdOff.attempted("a", false, 0)]).toEqual([false, false])
    expect(holdOff.heldOff(0)).toEqual([])
  })

  it("doubles the hold-off each time in a row up to the longest, and starts over after an answer", () => {
    const holdOff = makeHoldOff("30 seconds", "100 seconds")
    const lengths: Array<number> = []
    let now = 0
    for (let i = 0; i < 4; i++) {
      for (let attempt = 0; attempt < 3; attempt++) holdOff.attempted("a", false, now)
      let end = now
      while (holdOff.heldOff(end).length > 0) end += 1_000
      lengths.push(end - now)
      now = end
    }
    expect(lengths).toEqual([30_000, 60_000, 100_000, 100_000])
    holdOff.attempted("a", true, now)
    for (let attempt = 0; attempt < 3; attempt++) holdOff.attempted("a", false, now)
    expect(holdOff.heldOff(now + 29_999)).toEqual(["a"])
    expect(holdOff.heldOff(now + 30_000)).toEqual([])
  })

  it("keeps each connector's streak apart", () => {
    const holdOff = makeHoldOff("30 seconds", "5 minutes")
    for (let attempt = 0; attempt < 3; attempt++) holdOff.attempted("dead", false, 0)
    holdOff.attempted("slow", false, 0)
    expect(holdOff.heldOff(0)).toEqual(["dead"])
  })
})

describe("forgetting streaks no attempt continues", () => {
  it("forgets a streak the longest hold-off after its last attempt and hold-off, and starts the next one over", () => {
    const holdOff = makeHoldOff("30 seconds", "100 seconds")
    for (let attempt = 0; attempt < 3; attempt++) holdOff.attempted("dead", false, 0)
    holdOff.attempted("gone", false, 0)
    for (let i = 0; i < 1_000; i++) holdOff.attempted(`once ${i}`, false, 0)
    holdOff.heldOff(99_999)
    expect(holdOff.remembered()).toBe(1_002)
    holdOff.heldOff(129_999)
    expect(holdOff.remembered()).toBe(1)
    expect(holdOff.heldOff(130_000)).toEqual([])
    expect(holdOff.remembered()).toBe(0)
    for (let attempt = 0; attempt < 3; attempt++) holdOff.attempted("dead", false, 130_000)
    expect(holdOff.heldOff(130_000 + 29_999)).toEqual(["dead"])
    expect(holdOff.heldOff(130_000 + 30_000)).toEqual([])
  })
})
