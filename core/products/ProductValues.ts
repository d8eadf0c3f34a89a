import { searchText } from "../catalog/Text.js"
import { type AttributeSpec, type AttributeValues, byScope, entriesOf, isFilled, isStored, replaceTags, resolvedEntry, scopeKey, type ValueEntry } from "../schema/AttributeValues.js"
import type { FamilyAttribute } from "../schema/FamilyRepository.js"
import type { Issue } from "../shared/Errors.js"
import type { ProductIndex } from "./ProductRepository.js"
import { sameJson } from "../shared/CanonicalJson.js"

const scopeOf = (entry: ValueEntry) => scopeKey(entry.locale, entry.channel)

/**
 * DESIGN.md's merge: per code and per (locale, channel) entry; an entry with `value: null`
 * removes it, a code left without entries disappears. `touched` lists the codes whose
 * entries changed.
 */
export const mergeValues = (
  current: AttributeValues,
  patch: AttributeValues
): { readonly merged: AttributeValues; readonly touched: ReadonlyArray<string> } => {
  const merged: Record<string, ReadonlyArray<ValueEntry>> = { ...current }
  const touched: Array<string> = []
  for (const [code, entries] of Object.entries(patch)) {
    const before = entriesOf(current, code) ?? []
    // A rewritten entry keeps its place (a Map's order is that of first insertion); a new one goes last.
    const entriesByScope = new Map(before.map((e) => [scopeOf(e), e]))
    for (const entry of entries) {
      const scope = scopeOf(entry)
      if (entry.value === null) entriesByScope.delete(scope)
      else entriesByScope.set(scope, entry)
    }
    const next = [...entriesByScope.values()]
    if (next.length === 0) delete merged[code]
    else merged[code] = next
    if (!sameJson(canonicalOrder(next), canonicalOrder(before))) touched.push(code)
  }
  return { merged, touched }
}

/**
 * The `changed_fields` of touched attribute codes: DESIGN.md lists the top-level fields that
 * changed, `attributes` among them, and `attributes.<code>` for each code.
 */
export const attributeChanges = (touched: ReadonlyArray<string>): ReadonlyArray<string> =>
  touched.length === 0 ? [] : ["attributes", ...touched.map((code) => `attributes.${code}`)]

const canonicalOrder = (entries: ReadonlyArray<ValueEntry>) =>
  entries.map((e) => [scopeOf(e), e] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e)

/**
 * The same values keyed in code order: checking values kept by a family change in this order
 * names their issues in one order whatever order the database keeps the stored object's keys in.
 */
export const inCodeOrder = (values: AttributeValues): AttributeValues =>
  Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

/** Values written without the entries that only remove (`value: null`): what a create stores. */
export const withoutRemovals = (values: AttributeValues): AttributeValues => {
  const out: Record<string, ReadonlyArray<ValueEntry>> = {}
  for (const [code, entries] of Object.entries(values)) {
    const kept = entries.filter((e) => e.value !== null)
    if (kept.length > 0) out[code] = kept
  }
  return out
}

/** The value of each code for one locale and channel (see `resolvedEntry`); null when none applies. */
export const resolveValues = (
  values: AttributeValues,
  locale: string | null,
  channel: string | null
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [code, entries] of Object.entries(values)) out[code] = resolvedEntry(entries, locale, channel)?.value ?? null
  return out
}

const TEXT_TYPES = new Set(["text", "textarea", "richtext", "select", "multiselect", "tags"])

/** HTML's names of U+00A0 to U+00FF, in order. */
const LATIN1 = ("nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 " +
  "acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig " +
  "Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave " +
  "Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave " +
  "iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml").split(" ")

const ENTITIES: ReadonlyMap<string, string> = new Map([
  ...LATIN1.map((name, i) => [name, String.fromCharCode(0xa0 + i)] as const),
  ["amp", "&"], ["lt", "<"], ["gt", ">"], ["quot", "\""], ["apos", "'"], ["AMP", "&"], ["LT", "<"], ["GT", ">"], ["QUOT", "\""]
])

/** A code point written as a character reference, if it is one (not a surrogate, not past U+10FFFF). */
const fromCodePoint = (n: number): string | undefined =>
  Number.isInteger(n) && n > 0 && n <= 0x10ffff && (n < 0xd800 || n > 0xdfff) ? String.fromCodePoint(n) : undefined

/**
 * HTML's inline elements, which mark up part of a line and may fall within a word
 * (`Super<strong>sonic</strong>` reads `Supersonic`); every other tag parts words.
 */
const INLINE_TAGS = new Set([
  "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins", "kbd", "mark", "q", "s", "samp",
  "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr"
])

/**
 * The text of rich text: its tags dropped (a `<` that starts none is text), its character
 * references (`&amp;`, `&#233;`, `&eacute;`) read.
 */
const richText = (html: string): string =>
  replaceTags(html, (_, name) => (name !== undefined && INLINE_TAGS.has(name.toLowerCase()) ? "" : " ")).replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/g, (ref, dec?: string, hex?: string, name?: string) =>
    (dec !== undefined
      ? fromCodePoint(Number(dec))
      : hex !== undefined
      ? fromCodePoint(parseInt(hex, 16))
      : ENTITIES.get(name!)) ?? ref
  )

/**
 * Appends the text of a value to `out`: markup is read as markup in rich text only, so a `<`
 * in plain text (`volume <10 dB, weight >2 kg`) keeps the words around it.
 */
const addTexts = (value: unknown, rich: boolean, out: Array<string>): void => {
  if (typeof value === "string") out.push(rich ? richText(value) : value)
  else if (Array.isArray(value)) for (const v of value) addTexts(v, rich, out)
}

const numberOf = (type: string, value: unknown): number | undefined => {
  if (type === "number" && typeof value === "number") return value
  // A decimal past a double's range still has a value: it sorts and filters at the largest double of its sign.
  if (type === "decimal" && typeof value === "string") return Math.min(Math.max(Number(value), -Number.MAX_VALUE), Number.MAX_VALUE)
  if (type === "money" && typeof value === "object" && value !== null && "amount_cents" in value) {
    const cents = value.amount_cents
    return typeof cents === "number" ? cents : undefined
  }
  return undefined
}

/** The sortable numbers (default scope only) and the search text of a product. */
export const productIndex = (
  name: string,
  slug: string,
  values: AttributeValues,
  attributes: ReadonlyArray<Pick<FamilyAttribute, "attributeId" | "code" | "type">>
): ProductIndex => {
  const numbers: Array<{ attributeId: string; value: number }> = []
  for (const attribute of attributes) {
    const entries = entriesOf(values, attribute.code)
    if (entries === undefined) continue
    const atDefault = entries.find((e) => e.locale === null && e.channel === null)
    const n = atDefault === undefined ? undefined : numberOf(attribute.type, atDefault.value)
    if (n !== undefined && Number.isFinite(n)) numbers.push({ attributeId: attribute.attributeId, value: n })
  }
  return { numbers, searchText: productSearchText(name, slug, values, attributes), nameText: searchText([name]) }
}

/** What `q` searches in a product: its name, its slug and the text of its text-like values. */
export const productSearchText = (
  name: string,
  slug: string,
  values: AttributeValues,
  attributes: ReadonlyArray<{ readonly code: string; readonly type: string }>
): string => {
  const texts: Array<string> = [name, slug]
  for (const attribute of attributes) {
    const entries = entriesOf(values, attribute.code)
    if (entries !== undefined && TEXT_TYPES.has(attribute.type)) for (const e of entries) addTexts(e.value, attribute.type === "richtext", texts)
  }
  return searchText(texts)
}

/** One issue per required attribute of the family that has no value at the organization's default scope. */
export const missingRequired = (
  attributes: ReadonlyArray<FamilyAttribute>,
  values: AttributeValues,
  scope: { readonly locale: string | null; readonly channel: string | null },
  record = "product"
): ReadonlyArray<Issue> =>
  attributes
    .filter((a) => a.effectiveRequirement === "required" && !isFilled(a, entriesOf(values, a.code), scope))
    .map((a) => ({
      path: ["attributes", a.code],
      message: `required attribute ${a.code} must be filled${whereFilled(a, scope)} to activate the ${record}`,
      code: "required_attribute_missing"
    }))

/** Where a value must be for `isFilled`, when the attribute and the organization's defaults narrow it. */
const whereFilled = (
  attribute: { readonly isLocalizable: boolean; readonly isScopable: boolean },
  scope: { readonly locale: string | null; readonly channel: string | null }
): string => {
  const at = [
    attribute.isLocalizable && scope.locale !== null ? `locale ${scope.locale}` : undefined,
    attribute.isScopable && scope.channel !== null ? `channel ${scope.channel}` : undefined
  ].filter((s) => s !== undefined)
  return at.length === 0 ? "" : ` at ${at.join(" and ")} (or null)`
}

const isRemoval = (entry: unknown): boolean =>
  typeof entry === "object" && entry !== null && "value" in entry && entry.value === null &&
  "locale" in entry && "channel" in entry

/**
 * A patch may remove values of codes the family does not declare (a detached attribute, or
 * the family just changed): entries `{locale, channel, value: null}` under such codes are
 * removals, not errors. Entries of such a code sent back as the record stores them change
 * nothing, so a record read and written back whole is taken.
 */
export const splitUndeclaredRemovals = (
  specs: ReadonlyMap<string, AttributeSpec>,
  current: AttributeValues,
  patch: Readonly<Record<string, unknown>>
): { readonly declared: Record<string, unknown>; readonly removals: AttributeValues } => {
  // Built from pairs, which define every key as the object's own, `__proto__` included.
  const declared: Array<[string, unknown]> = []
  const removals: Array<[string, ReadonlyArray<ValueEntry>]> = []
  for (const [code, entries] of Object.entries(patch)) {
    const held = specs.has(code) ? undefined : entriesOf(current, code)
    const stored = held === undefined || !Array.isArray(entries) || entries.length === 0 ? undefined : byScope(held)
    if (stored !== undefined && Array.isArray(entries) && entries.every((e) => isRemoval(e) || isStored(stored, e))) {
      removals.push([code, entries.filter(isRemoval).map((e: { locale: string | null; channel: string | null }) => ({ locale: e.locale, channel: e.channel, value: null }))])
    } else {
      declared.push([code, entries])
    }
  }
  return { declared: Object.fromEntries(declared), removals: Object.fromEntries(removals) }
}
