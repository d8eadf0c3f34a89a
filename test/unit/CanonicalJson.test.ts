import { describe, expect, it } from "vitest"
import { canonicalJson, sameJson } from "../../core/shared/CanonicalJson.js"
import { axisKey } from "../../core/variants/VariantAxes.js"

describe("canonicalJson", () => {
  it("orders the keys of every object, nested ones and those in arrays, and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}')
    expect(sameJson({ value: 1, locale: null }, { locale: null, value: 1 })).toBe(true)
    expect(sameJson([1, 2], [2, 1])).toBe(false)
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false)
  })
})

describe("axisKey", () => {
  it("is the same for axis values that differ only in the order of their keys", () => {
    const weight = { attributeId: "a", code: "weight", type: "measurement", isLocalizable: false, isScopable: false, validation: null, effectiveRequirement: "available", isVariantAxis: true, position: 0 } as const
    const key = (value: unknown) => axisKey([weight], { weight: [{ locale: null, channel: null, value }] })
    expect(key({ amount: 1, unit: "kg" })).toBe(key({ unit: "kg", amount: 1 }))
    expect(key({ amount: 1, unit: "kg" })).not.toBe(key({ amount: 2, unit: "kg" }))
  })
})
