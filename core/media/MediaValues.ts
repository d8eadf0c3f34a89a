import { Effect } from "effect"
import { type AttributeSpec, type AttributeValues, sameLocale, type ValueEntry } from "../schema/AttributeValues.js"
import { type Issue, ValidationFailed } from "../shared/Errors.js"
import type { MediaRepository } from "./MediaRepository.js"
import { isUuid } from "../shared/Fields.js"

const MEDIA_TYPES: ReadonlySet<string> = new Set(["media", "file"])
/**
 * Every UUID-shaped value in unchecked attribute input, lower-cased: a superset of the media
 * ids it names, found before the family (and so the types) is known.
 */
export const uuidValuesOf = (attributes: unknown): ReadonlyArray<string> => {
  if (typeof attributes !== "object" || attributes === null) return []
  const found: Array<string> = []
  for (const code of Object.keys(attributes)) {
    const entries: unknown = (attributes as Record<string, unknown>)[code]
    if (!Array.isArray(entries)) continue
    for (const entry of entries) {
      const value: unknown = typeof entry === "object" && entry !== null ? (entry as { value?: unknown }).value : undefined
      if (typeof value === "string" && value.length === 36 && isUuid(value)) found.push(value.toLowerCase())
    }
  }
  return found
}

/**
 * Whether the record already holds this value at this scope. A value sent back as it is stored
 * is not checked again: a record read and written back whole stays writable after a media
 * record one of its values names was deleted.
 */
const alreadyStored = (stored: AttributeValues | undefined, code: string, e: ValueEntry): boolean =>
  stored?.[code]?.some((s) => sameLocale(s.locale, e.locale) && s.channel === e.channel && s.value === e.value) ?? false

/** The media ids that the `media` and `file` values of checked `values` name, but those `stored` already holds. */
const mediaIdsOf = (specs: ReadonlyMap<string, AttributeSpec>, values: AttributeValues, stored?: AttributeValues): ReadonlyArray<string> => {
  const ids: Array<string> = []
  for (const code in values) {
    if (!MEDIA_TYPES.has(specs.get(code)?.type ?? "")) continue
    for (const e of values[code] ?? []) if (typeof e.value === "string" && !alreadyStored(stored, code, e)) ids.push(e.value)
  }
  return ids
}

/**
 * One issue per `media` or `file` value of checked `values` that names no media record in
 * `known`, but those `stored` already holds; the path points at the entry as sent (checking
 * keeps every entry in place).
 */
export const unknownMediaIssues = (
  specs: ReadonlyMap<string, AttributeSpec>,
  values: AttributeValues,
  known: ReadonlySet<string>,
  stored?: AttributeValues
): Array<Issue> => {
  const issues: Array<Issue> = []
  for (const code in values) {
    if (!MEDIA_TYPES.has(specs.get(code)?.type ?? "")) continue
    ;(values[code] ?? []).forEach((e, i) => {
      if (typeof e.value === "string" && !known.has(e.value) && !alreadyStored(stored, code, e)) {
        issues.push({ path: ["attributes", code, i, "value"], message: `media ${e.value} does not exist`, code: "unknown_media" })
      }
    })
  }
  return issues
}

/**
 * Refuses (422) checked `values` whose `media` or `file` values name no media record of the
 * organization, but those the record already holds (`stored`, on an update).
 */
export const checkMediaValues = (
  media: typeof MediaRepository.Service,
  organizationId: string,
  specs: ReadonlyMap<string, AttributeSpec>,
  values: AttributeValues,
  stored?: AttributeValues
): Effect.Effect<void, ValidationFailed> =>
  Effect.gen(function*() {
    const ids = mediaIdsOf(specs, values, stored)
    if (ids.length === 0) return
    const issues = unknownMediaIssues(specs, values, yield* media.existing(organizationId, [...new Set(ids)]), stored)
    if (issues.length > 0) return yield* ValidationFailed.of(issues)
  })
