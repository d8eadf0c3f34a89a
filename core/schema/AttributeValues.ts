import { Either, Schema } from "effect"
import { addIssues, hasEnoughIssues, type Issue } from "../shared/Errors.js"
import { sameJson } from "../shared/CanonicalJson.js"
import { shown } from "../shared/Preview.js"
import { hasVisibleText } from "../shared/VisibleText.js"
import { isRecord, VALUE_VALIDATORS } from "./ValueValidators.js"

export const AttributeType = Schema.Literal(
  "text",
  "textarea",
  "richtext",
  "number",
  "decimal",
  "boolean",
  "date",
  "datetime",
  "select",
  "multiselect",
  "reference",
  "media",
  "measurement",
  "url",
  "email",
  "json",
  "money",
  "tags",
  "file"
)
export type AttributeType = typeof AttributeType.Type

/** What value validation needs to know of an attribute. */
export interface AttributeSpec {
  readonly code: string
  readonly type: AttributeType
  readonly isLocalizable: boolean
  readonly isScopable: boolean
  readonly validation: Readonly<Record<string, unknown>> | null
}

/** One stored value of an attribute, at a locale and a channel (null where not localizable / scopable). */
export interface ValueEntry {
  readonly locale: string | null
  readonly channel: string | null
  readonly value: unknown
}

/** A record's attribute values: code -> entries. */
export type AttributeValues = Readonly<Record<string, ReadonlyArray<ValueEntry>>>

/**
 * Locale codes name one locale whatever their case (`en-US`, `en-us`), as BCP 47 tags do; they
 * are stored as written and compared by this key. Channel codes are compared as written.
 */
export const localeKey = (locale: string | null): string | null => (locale === null ? null : locale.toLowerCase())

/** Whether two locales (null included) are one. */
export const sameLocale = (a: string | null, b: string | null): boolean => localeKey(a) === localeKey(b)

/** One string per (locale, channel) pair, `null` kept apart from any text. */
export const scopeKey = (locale: string | null, channel: string | null): string => JSON.stringify([localeKey(locale), channel])

/** The entries under `code`, from own keys only: `constructor` is a valid code, not Object.prototype's. */
export const entriesOf = (values: AttributeValues, code: string): ReadonlyArray<ValueEntry> | undefined =>
  Object.hasOwn(values, code) ? values[code] : undefined

type Path = ReadonlyArray<string | number>

const ENTRY_KEYS = new Set(["locale", "channel", "value"])

/** The issue of an entry's `locale` or `channel`, if any; its path is built only then, as most entries are valid. */
const scopeIssue = (
  spec: AttributeSpec,
  key: "locale" | "channel",
  entry: Readonly<Record<string, unknown>>,
  at: Path,
  index: number
): Issue | undefined => {
  if (!Object.hasOwn(entry, key)) return { path: [...at, index, key], message: `${key} is required (null or a string)`, code: "required" }
  const value = entry[key]
  // Null is always allowed: on a localizable (scopable) attribute it is the value for every
  // locale (channel) that has none of its own.
  if (value === null) return undefined
  if (typeof value !== "string" || value.length === 0) {
    return { path: [...at, index, key], message: `must be null or a non-empty string`, code: "invalid_type" }
  }
  const enabled = key === "locale" ? spec.isLocalizable : spec.isScopable
  if (enabled) return undefined
  const adjective = key === "locale" ? "localizable" : "scopable"
  return { path: [...at, index, key], message: `must be null: attribute ${spec.code} is not ${adjective}`, code: `not_${adjective}` }
}

const isScopePart = (part: unknown): part is string | null => part === null || typeof part === "string"

/** An entry exactly as the record stores one (of `byScope(stored)`): its locale and channel as written, and its value. */
export const isStored = (stored: ReadonlyMap<string, ValueEntry>, entry: unknown): boolean => {
  if (typeof entry !== "object" || entry === null || Object.keys(entry).length !== 3 || !("value" in entry)) return false
  if (!("locale" in entry) || !("channel" in entry) || !isScopePart(entry.locale) || !isScopePart(entry.channel)) return false
  const found = stored.get(scopeKey(entry.locale, entry.channel))
  return found !== undefined && found.locale === entry.locale && found.channel === entry.channel && sameJson(found.value, entry.value)
}

const NO_RULES: Readonly<Record<string, unknown>> = {}

/**
 * Checks one value (never null) against the attribute's type and `validation` rules;
 * answers it normalized (a decimal sent as a number comes back as a string).
 */
export const validateValue = (spec: AttributeSpec, value: unknown, path: Path): Either.Either<unknown, ReadonlyArray<Issue>> =>
  VALUE_VALIDATORS[spec.type](value, spec.validation ?? NO_RULES, path)

/** Checks one value against the attribute's type alone, its `validation` left out. */
const validateType = (spec: AttributeSpec, value: unknown, path: Path): Either.Either<unknown, ReadonlyArray<Issue>> =>
  VALUE_VALIDATORS[spec.type](value, NO_RULES, path)

/**
 * Validates untrusted `input` (a map code -> array of entries) against the attributes a family
 * declares (keyed by code). Unknown codes, entries without both `locale` and `channel` keys,
 * locale/channel that break the localizable/scopable rules, duplicate (locale, channel) pairs
 * within a code and values of the wrong shape are issues whose paths start at `path` (e.g.
 * ["attributes", code, 0, "value"]). A `value: null` entry is kept as is (it means "remove" to
 * callers that merge). Valid values come back normalized (a decimal sent as a JSON number
 * becomes a string). An entry sent exactly as `stored` holds it is checked for its type only:
 * the attribute's `validation` may have narrowed since it was written, and a record read and
 * written back whole must not be refused for values it does not change.
 */
export const validateAttributeValues = (
  specs: ReadonlyMap<string, AttributeSpec>,
  input: unknown,
  path: ReadonlyArray<string | number>,
  stored: AttributeValues = {}
): Either.Either<AttributeValues, ReadonlyArray<Issue>> => {
  if (!isRecord(input)) {
    return Either.left([{ path, message: "must be an object mapping attribute codes to arrays of entries", code: "invalid_type" }])
  }
  const issues: Array<Issue> = []
  const out: Record<string, ReadonlyArray<ValueEntry>> = {}
  // Keys, not entries: on an object of a million keys, Object.entries takes three times as long.
  for (const code of Object.keys(input)) {
    if (hasEnoughIssues(issues)) break
    const entries = input[code]
    const at = [...path, code]
    const spec = specs.get(code)
    if (spec === undefined) {
      issues.push({ path: at, message: `attribute ${shown(code)} is not declared by the family`, code: "unknown_attribute" })
      continue
    }
    if (!Array.isArray(entries)) {
      issues.push({ path: at, message: "must be an array of {locale, channel, value} entries", code: "invalid_type" })
      continue
    }
    const held = entriesOf(stored, code)
    const storedByScope = held === undefined ? undefined : byScope(held)
    const seen = new Set<string>()
    const normalized: Array<ValueEntry> = []
    for (let i = 0; i < entries.length && !hasEnoughIssues(issues); i++) {
      const entry: unknown = entries[i]
      if (!isRecord(entry)) {
        issues.push({ path: [...at, i], message: "must be an object {locale, channel, value}", code: "invalid_type" })
        continue
      }
      const before = issues.length
      for (const key of Object.keys(entry)) {
        if (!ENTRY_KEYS.has(key)) issues.push({ path: [...at, i, key], message: `unknown key ${shown(key)}`, code: "unrecognized_key" })
      }
      const localeIssue = scopeIssue(spec, "locale", entry, at, i)
      if (localeIssue !== undefined) issues.push(localeIssue)
      const channelIssue = scopeIssue(spec, "channel", entry, at, i)
      if (channelIssue !== undefined) issues.push(channelIssue)
      if (!Object.hasOwn(entry, "value")) {
        issues.push({ path: [...at, i, "value"], message: "value is required (null removes the entry)", code: "required" })
      }
      if (issues.length > before) continue
      const locale = entry["locale"] as string | null
      const channel = entry["channel"] as string | null
      const scope = scopeKey(locale, channel)
      if (seen.has(scope)) {
        issues.push({ path: [...at, i], message: `more than one entry for locale ${locale === null ? null : shown(locale)} and channel ${channel === null ? null : shown(channel)}`, code: "duplicate_entry" })
        continue
      }
      seen.add(scope)
      if (entry["value"] === null) {
        normalized.push({ locale, channel, value: null })
        continue
      }
      const unchanged = storedByScope !== undefined && isStored(storedByScope, entry)
      const checked = (unchanged ? validateType : validateValue)(spec, entry["value"], [...at, i, "value"])
      if (Either.isLeft(checked)) addIssues(issues, checked.left)
      else normalized.push({ locale, channel, value: checked.right })
    }
    out[code] = normalized
  }
  return issues.length > 0 ? Either.left(issues) : Either.right(out)
}

/**
 * Null, text of white space and invisible format characters alone (a zero-width space, a soft
 * hyphen), a list of nothing but such values (none at all included), or an object without keys
 * (a `json` value of `{}`).
 */
const isEmpty = (value: unknown): boolean =>
  value === null || value === undefined || (typeof value === "string" && !hasVisibleText(value)) ||
  (Array.isArray(value) && value.every(isEmpty)) ||
  (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0)

/**
 * A tag of rich text, as HTML reads one: `<` then a letter (a start tag, its name captured),
 * `/` (an end tag), `!` (a comment or doctype) or `?`, up to the next `>`. Any other `<` is
 * text, as a browser shows it: `volume <10 dB, weight >2 kg` holds no tag.
 */
const MARKUP_TAG = /<(?:\/?([a-zA-Z][^\s/>]*)[^>]*|[!?/][^>]*)>/g

/**
 * `html` with each of its tags (`MARKUP_TAG`, its name passed when it has one) replaced. Only
 * the text up to the last `>` is searched: a `<` after it starts no tag, and searching from each
 * one took time growing with the square of their count (6 MB of `<a ` held the server for hours).
 */
export const replaceTags = (html: string, replace: (tag: string, name?: string) => string): string => {
  const end = html.lastIndexOf(">") + 1
  return html.slice(0, end).replace(MARKUP_TAG, replace) + html.slice(end)
}

/** Elements that show content without text: an image, a video or sound, an embedded frame or drawing. */
const EMBEDDED_CONTENT = /<(?:img|picture|video|audio|iframe|embed|object|svg|canvas)[\s/>]/i

/**
 * Rich text of markup alone (`<p><br></p>`, what an emptied editor leaves), no-break spaces
 * included, holds no text. Markup that embeds an image or a video is content of its own.
 */
const isBlankMarkup = (value: unknown): boolean =>
  typeof value === "string" && !EMBEDDED_CONTENT.test(value) &&
  !hasVisibleText(replaceTags(value, () => "").replace(/&nbsp;|&#160;|&#xa0;/gi, " "))

/** Entries by `scopeKey`, the first of each scope kept: each lookup of a resolution is then one. */
export const byScope = (entries: ReadonlyArray<ValueEntry>): ReadonlyMap<string, ValueEntry> => {
  const out = new Map<string, ValueEntry>()
  for (const e of entries) {
    const key = scopeKey(e.locale, e.channel)
    if (!out.has(key)) out.set(key, e)
  }
  return out
}

const resolveIn = (entries: ReadonlyMap<string, ValueEntry>, locale: string | null, channel: string | null): ValueEntry | undefined =>
  entries.get(scopeKey(locale, channel)) ?? entries.get(scopeKey(locale, null)) ?? entries.get(scopeKey(null, channel)) ??
    entries.get(scopeKey(null, null))

/**
 * The entry read at a locale and channel: the exact one, then that locale with a null channel,
 * then that channel with a null locale, then the null/null one. Locales match whatever their case.
 */
export const resolvedEntry = (entries: ReadonlyArray<ValueEntry>, locale: string | null, channel: string | null): ValueEntry | undefined =>
  resolveIn(byScope(entries), locale, channel)

/**
 * DESIGN.md: filled when it has a non-empty value at the organization's default locale and
 * channel (or at null where not localizable / not scopable). A null locale (channel) is the
 * value for every locale (channel) without one of its own, as `resolvedAttributes` reads it:
 * an empty entry of the default locale hides a filled null one. Where the organization sets
 * no default locale (channel), a value at any locale (channel) counts.
 */
export const isFilled = (
  spec: AttributeSpec,
  entries: ReadonlyArray<ValueEntry> | undefined,
  scope: { readonly locale: string | null; readonly channel: string | null }
): boolean => {
  const applying = byScope((entries ?? []).filter((e) => (e.locale === null || spec.isLocalizable) && (e.channel === null || spec.isScopable)))
  // A locale (channel) the organization leaves open may be any one: an entry read at some locale
  // (channel) is also read at its own, so its own is the one to try.
  return [...applying.values()].some((e) => {
    const read = resolveIn(applying, scope.locale ?? e.locale, scope.channel ?? e.channel)
    return read !== undefined && !isEmpty(read.value) && !(spec.type === "richtext" && isBlankMarkup(read.value))
  })
}
