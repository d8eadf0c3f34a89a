import { type AttributeValues, isFilled, type ValueEntry } from "../schema/AttributeValues.js"
import type { FamilyAttribute } from "../schema/FamilyRepository.js"
import type { Issue } from "../shared/Errors.js"

const sameScope = (a: ValueEntry, b: ValueEntry) => a.locale === b.locale && a.channel === b.channel

/**
 * DESIGN.md's merge: per code and per (locale, channel) entry; an entry with `value: null`
 * removes it, a code left without entries disappears. `touched` lists the codes whose entries changed.
 */
export const mergeValues = (
  current: AttributeValues,
  patch: AttributeValues
): { readonly merged: AttributeValues; readonly touched: ReadonlyArray<string> } => {
  const merged: Record<string, ReadonlyArray<ValueEntry>> = { ...current }
  const touched: Array<string> = []
  for (const [code, entries] of Object.entries(patch)) {
    const before = current[code] ?? []
    let next: ReadonlyArray<ValueEntry> = before
    for (const entry of entries) {
      next = next.filter((e) => !sameScope(e, entry))
      if (entry.value !== null) next = [...next, entry]
    }
    if (next.length === 0) delete merged[code]
    else merged[code] = next
    if (JSON.stringify(next) !== JSON.stringify(before)) touched.push(code)
  }
  return { merged, touched }
}

/** Values without the entries that only remove (`value: null`): what a create stores. */
export const withoutRemovals = (values: AttributeValues): AttributeValues => mergeValues({}, values).merged

/** One issue per required attribute without a value at the organization's default scope. */
export const missingRequired = (
  attributes: ReadonlyArray<FamilyAttribute>,
  values: AttributeValues,
  scope: { readonly locale: string | null; readonly channel: string | null },
  what: string
): ReadonlyArray<Issue> =>
  attributes
    .filter((a) => a.effectiveRequirement === "required" && !isFilled(a, values[a.code], scope))
    .map((a) => ({
      path: ["attributes", a.code],
      message: `required attribute ${a.code} must be filled to activate the ${what}`,
      code: "required_attribute_missing"
    }))
