import { type AttributeValues, entriesOf, isFilled, localeKey } from "../schema/AttributeValues.js"
import type { FamilyAttribute } from "../schema/FamilyRepository.js"
import { canonicalDecimal } from "../schema/ValueValidators.js"
import { canonicalInstant } from "../shared/Calendar.js"
import type { Issue } from "../shared/Errors.js"
import { canonicalJson } from "../shared/CanonicalJson.js"

type Scope = { readonly locale: string | null; readonly channel: string | null }

/** The family's variant axes, by code. */
export const axesOf = (attributes: ReadonlyArray<FamilyAttribute>): ReadonlyArray<FamilyAttribute> =>
  attributes.filter((a) => a.isVariantAxis).sort((a, b) => a.code.localeCompare(b.code))

/** One issue per axis the variant leaves without a value at the organization's default scope. */
export const missingAxes = (axes: ReadonlyArray<FamilyAttribute>, values: AttributeValues, scope: Scope): ReadonlyArray<Issue> =>
  axes
    .filter((a) => !isFilled(a, entriesOf(values, a.code), scope))
    .map((a) => ({ path: ["attributes", a.code], message: `variant axis ${a.code} must have a value`, code: "variant_axis_missing" }))

/**
 * One form for values that name the same thing, as the rest of the catalog reads them: a
 * decimal's number whatever its zeros, a multiselect's options and a tags value's tags as sets
 * whatever their order (each refuses an item twice), a date-time's instant whatever its
 * precision or offset.
 */
const comparable = (type: FamilyAttribute["type"], value: unknown): unknown => {
  if (type === "decimal" && typeof value === "string") return canonicalDecimal(value)
  if (type === "datetime" && typeof value === "string") return canonicalInstant(value)
  if ((type === "multiselect" || type === "tags") && Array.isArray(value)) return [...value].map(String).sort()
  return value
}

/** What the combination key reads of an axis. */
export type Axis = Pick<FamilyAttribute, "attributeId" | "code" | "type">

/**
 * The variant's combination of axis values as one comparable text: entries of each axis in a
 * fixed order, each locale in one case (a locale is one locale whatever its case) and each
 * value in its comparable form. Null when the family has no axes (then nothing is compared).
 *
 * Axes are named by attribute id, not code: the database keeps the key a variant was last
 * written with, and an attribute renamed, or deleted and made again under its code, must not
 * make that old key stand for another combination.
 */
export const axisKey = (axes: ReadonlyArray<Axis>, values: AttributeValues): string | null => {
  if (axes.length === 0) return null
  const scoped = (e: { readonly locale: string | null; readonly channel: string | null }) => `${e.locale ?? ""}\u0000${e.channel ?? ""}`
  return canonicalJson(
    [...axes].sort((a, b) => (a.attributeId < b.attributeId ? -1 : a.attributeId > b.attributeId ? 1 : 0)).map((a) => [
      a.attributeId,
      (entriesOf(values, a.code) ?? [])
        .map((e) => ({ locale: localeKey(e.locale), channel: e.channel, value: comparable(a.type, e.value) }))
        .sort((x, y) => scoped(x) < scoped(y) ? -1 : scoped(x) > scoped(y) ? 1 : 0)
        .map((e) => [e.locale, e.channel, e.value])
    ])
  )
}
