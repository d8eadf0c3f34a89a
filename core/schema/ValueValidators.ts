import { Either } from "effect"
import { compareInstants, DATETIME_MESSAGE, datetimeMillis, isCalendarDate, toUtcText } from "../shared/Calendar.js"
import { isJsonValue } from "../shared/CanonicalJson.js"
import { isCurrencyCode } from "../shared/Currencies.js"
import { addIssues, hasEnoughIssues, type Issue } from "../shared/Errors.js"
import { shown } from "../shared/Preview.js"
import type { AttributeType } from "./AttributeValues.js"
import { compilePattern } from "./Pattern.js"
import { AMOUNT_CENTS_MESSAGE, isEmailAddress, isUuid } from "../shared/Fields.js"

type Path = ReadonlyArray<string | number>
type Rules = Readonly<Record<string, unknown>>

/** Checks one non-null value; answers it normalized, or the issues found at `path`. */
type ValueValidator = (value: unknown, rules: Rules, path: Path) => Either.Either<unknown, ReadonlyArray<Issue>>

const fail = (path: Path, message: string, code: string): Either.Either<never, ReadonlyArray<Issue>> =>
  Either.left([{ path, message, code }])

const collect = (value: unknown, issues: ReadonlyArray<Issue>): Either.Either<unknown, ReadonlyArray<Issue>> =>
  issues.length > 0 ? Either.left(issues) : Either.right(value)

// Rules are free-form: a key of the wrong type (or a pattern that does not compile) is ignored.

const numberRule = (rules: Rules, key: string): number | undefined => {
  const v = rules[key]
  return typeof v === "number" && Number.isFinite(v) ? v : undefined
}

const stringRule = (rules: Rules, key: string): string | undefined => {
  const v = rules[key]
  return typeof v === "string" ? v : undefined
}

/** A list of allowed strings: plain strings, or objects naming them by `code` or `value`. */
const listOf = (v: unknown): ReadonlySet<string> | undefined => {
  if (!Array.isArray(v)) return undefined
  return new Set(v.flatMap((item: unknown) => {
    if (typeof item === "string") return [item]
    if (typeof item === "object" && item !== null) {
      const named = "code" in item ? item.code : "value" in item ? item.value : undefined
      return typeof named === "string" ? [named] : []
    }
    return []
  }))
}

/** The message for a value outside `allowed`; a long list is not repeated in every issue. */
const oneOf = (allowed: ReadonlySet<string>): string =>
  allowed.size === 0 ? "is not allowed: the attribute's validation.options names no value" :
  allowed.size <= 20 ? `must be one of ${[...allowed].join(", ")}` : `must be one of the ${allowed.size} allowed values`

// Rules belong to an attribute and are checked against every value of it that a batch writes:
// read each list once per rules object.
const lists = new WeakMap<Rules, Map<string, ReadonlySet<string> | undefined>>()
const listRule = (rules: Rules, key: string): ReadonlySet<string> | undefined => {
  let byKey = lists.get(rules)
  if (byKey === undefined) {
    byKey = new Map()
    lists.set(rules, byKey)
  }
  if (!byKey.has(key)) byKey.set(key, listOf(rules[key]))
  return byKey.get(key)
}

// Compiled once per rules object, as the lists are.
const patterns = new WeakMap<Rules, RegExp | undefined>()
const patternRule = (rules: Rules): RegExp | undefined => {
  if (patterns.has(rules)) return patterns.get(rules)
  const source = stringRule(rules, "pattern")
  const pattern = source === undefined ? undefined : compilePattern(source)
  patterns.set(rules, pattern)
  return pattern
}

export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/** minLength, maxLength and pattern on a string. */
const stringIssues = (s: string, rules: Rules, path: Path): ReadonlyArray<Issue> => {
  if (rules["minLength"] === undefined && rules["maxLength"] === undefined && rules["pattern"] === undefined) return []
  const issues: Array<Issue> = []
  // Characters, not UTF-16 units.
  const length = [...s].length
  const minLength = numberRule(rules, "minLength")
  const maxLength = numberRule(rules, "maxLength")
  const pattern = patternRule(rules)
  if (minLength !== undefined && length < minLength) issues.push({ path, message: `must be at least ${minLength} characters`, code: "too_small" })
  if (maxLength !== undefined && length > maxLength) issues.push({ path, message: `must be at most ${maxLength} characters`, code: "too_big" })
  if (pattern !== undefined && !pattern.test(s)) issues.push({ path, message: `must match ${pattern.source}`, code: "invalid_pattern" })
  return issues
}

/** min and max on a number. */
const rangeIssues = (n: number, rules: Rules, path: Path): ReadonlyArray<Issue> => {
  const min = numberRule(rules, "min")
  const max = numberRule(rules, "max")
  const issues: Array<Issue> = []
  if (min !== undefined && n < min) issues.push({ path, message: `must be at least ${min}`, code: "too_small" })
  if (max !== undefined && n > max) issues.push({ path, message: `must be at most ${max}`, code: "too_big" })
  return issues
}

const optionIssues = (s: string, rules: Rules, path: Path): ReadonlyArray<Issue> => {
  const options = listRule(rules, "options")
  return options === undefined || options.has(s) ? [] : [{ path, message: oneOf(options), code: "invalid_option" }]
}

const text: ValueValidator = (value, rules, path) =>
  typeof value === "string" ? collect(value, stringIssues(value, rules, path)) : fail(path, "must be a string", "invalid_type")

const number: ValueValidator = (value, rules, path) =>
  typeof value === "number" && Number.isFinite(value)
    ? collect(value, rangeIssues(value, rules, path))
    : fail(path, "must be a finite number", "invalid_type")

const DECIMAL = /^-?\d+(\.\d+)?$/

/** A finite JSON number written out without an exponent. */
const plainDecimal = (n: number): string => {
  const s = String(n)
  if (!/e/i.test(s)) return s
  // The shortest digits that round-trip, with the decimal point moved by hand: 1e21 is
  // "1" and 21 zeros, not the binary double's exact value.
  const [mantissa = "", exponent = "0"] = s.split(/e/i)
  const negative = mantissa.startsWith("-")
  const unsigned = negative ? mantissa.slice(1) : mantissa
  const point = unsigned.indexOf(".")
  const digits = unsigned.replace(".", "")
  const at = (point === -1 ? unsigned.length : point) + Number(exponent)
  const plain = at <= 0
    ? `0.${"0".repeat(-at)}${digits}`
    : at >= digits.length
    ? digits + "0".repeat(at - digits.length)
    : `${digits.slice(0, at)}.${digits.slice(at)}`
  return (negative ? "-" : "") + plain.replace(/\.$/, "")
}

/** Sign, integer digits and fraction digits of a `DECIMAL` string, without redundant zeros. */
const decimalParts = (s: string) => {
  const negative = s.startsWith("-")
  const [int = "", frac = ""] = (negative ? s.slice(1) : s).split(".")
  const digits = { int: int.replace(/^0+/, ""), frac: frac.replace(/0+$/, "") }
  return { ...digits, negative: negative && (digits.int !== "" || digits.frac !== "") }
}

/** One text per decimal number: `"012.50"`, `"12.5"` and `12.5` are all `"12.5"`; `"-0.0"` is `"0"`. */
export const canonicalDecimal = (s: string): string => {
  const x = decimalParts(s)
  return `${x.negative ? "-" : ""}${x.int === "" ? "0" : x.int}${x.frac === "" ? "" : `.${x.frac}`}`
}

/** Compares two `DECIMAL` strings exactly: a double would take 10.0000000000000000001 for 10. */
export const compareDecimals = (a: string, b: string): -1 | 0 | 1 => {
  const x = decimalParts(a)
  const y = decimalParts(b)
  if (x.negative !== y.negative) return x.negative ? -1 : 1
  const sign = x.negative ? -1 : 1
  if (x.int.length !== y.int.length) return x.int.length < y.int.length ? -sign as -1 | 1 : sign
  const width = Math.max(x.frac.length, y.frac.length)
  const left = x.int + x.frac.padEnd(width, "0")
  const right = y.int + y.frac.padEnd(width, "0")
  return left === right ? 0 : left < right ? -sign as -1 | 1 : sign
}

/**
 * A `DECIMAL` string as it is stored: without the zeros before its first digit that count and
 * without the sign of a zero (`"007.50"` is `"7.50"`, `"-0.00"` is `"0.00"`), which a storefront
 * would show, while the fraction keeps the digits sent, as its scale says how the value is read.
 */
const storedDecimal = (s: string): string => {
  const negative = s.startsWith("-")
  const unsigned = (negative ? s.slice(1) : s).replace(/^0+(?=\d)/, "")
  return negative && /[1-9]/.test(unsigned) ? `-${unsigned}` : unsigned
}

/** A bound on decimals: a finite number, or a decimal string as the values themselves are written ("10.50"). */
const decimalRule = (rules: Rules, key: string): string | undefined => {
  const v = rules[key]
  if (typeof v === "number") return Number.isFinite(v) ? plainDecimal(v) : undefined
  return typeof v === "string" && DECIMAL.test(v) ? v : undefined
}

const decimal: ValueValidator = (value, rules, path) => {
  const s = typeof value === "number" && Number.isFinite(value) ? plainDecimal(value) : value
  if (typeof s !== "string" || !DECIMAL.test(s)) return fail(path, "must be a decimal string such as \"12.50\"", "invalid_type")
  const min = decimalRule(rules, "min")
  const max = decimalRule(rules, "max")
  const issues: Array<Issue> = []
  if (min !== undefined && compareDecimals(s, min) < 0) issues.push({ path, message: `must be at least ${min}`, code: "too_small" })
  if (max !== undefined && compareDecimals(s, max) > 0) issues.push({ path, message: `must be at most ${max}`, code: "too_big" })
  return collect(storedDecimal(s), issues)
}

const boolean: ValueValidator = (value, _rules, path) =>
  typeof value === "boolean" ? Either.right(value) : fail(path, "must be a boolean", "invalid_type")

const date: ValueValidator = (value, rules, path) => {
  if (typeof value !== "string" || !isCalendarDate(value)) return fail(path, "must be a date YYYY-MM-DD", "invalid_type")
  const min = stringRule(rules, "min")
  const max = stringRule(rules, "max")
  const issues: Array<Issue> = []
  if (min !== undefined && isCalendarDate(min) && value < min) issues.push({ path, message: `must be on or after ${min}`, code: "too_small" })
  if (max !== undefined && isCalendarDate(max) && value > max) issues.push({ path, message: `must be on or before ${max}`, code: "too_big" })
  return collect(value, issues)
}

const datetime: ValueValidator = (value, rules, path) => {
  const t = typeof value === "string" ? datetimeMillis(value) : undefined
  if (t === undefined) return fail(path, DATETIME_MESSAGE, "invalid_type")
  const min = stringRule(rules, "min")
  const max = stringRule(rules, "max")
  const issues: Array<Issue> = []
  // Compared as instants to the last digit sent: a millisecond holds many a value past `max`.
  if (min !== undefined && datetimeMillis(min) !== undefined && compareInstants(value as string, min) < 0) {
    issues.push({ path, message: `must be at or after ${min}`, code: "too_small" })
  }
  if (max !== undefined && datetimeMillis(max) !== undefined && compareInstants(value as string, max) > 0) {
    issues.push({ path, message: `must be at or before ${max}`, code: "too_big" })
  }
  // The specification's dates are in UTC: a value sent with an offset is kept as its instant in UTC.
  return collect(toUtcText(value as string), issues)
}

/** A select value is a string: the string rules hold for it too, beside its options. */
const choiceIssues = (s: string, rules: Rules, path: Path): ReadonlyArray<Issue> => {
  const options = optionIssues(s, rules, path)
  const strings = stringIssues(s, rules, path)
  return strings.length === 0 ? options : [...options, ...strings]
}

const select: ValueValidator = (value, rules, path) =>
  typeof value === "string" ? collect(value, choiceIssues(value, rules, path)) : fail(path, "must be a string", "invalid_type")

/** An array of strings, each checked by an `item` made for that array. */
const stringArray = (
  itemFor: () => (s: string, rules: Rules, path: Path) => ReadonlyArray<Issue>
): ValueValidator =>
(value, rules, path) => {
  if (!Array.isArray(value)) return fail(path, "must be an array of strings", "invalid_type")
  const item = itemFor()
  const issues: Array<Issue> = []
  for (let i = 0; i < value.length && !hasEnoughIssues(issues); i++) {
    const v: unknown = value[i]
    if (typeof v === "string") addIssues(issues, item(v, rules, [...path, i]))
    else issues.push({ path: [...path, i], message: "must be a string", code: "invalid_type" })
  }
  return collect(value, issues)
}

// A multiselect value is a set of options: naming one twice is a mistake, not a weight.
const multiselect = stringArray(() => {
  const selected = new Set<string>()
  return (s, rules, path) => {
    if (selected.has(s)) return [{ path, message: `option ${shown(s)} is already selected`, code: "duplicate_entry" }]
    selected.add(s)
    return choiceIssues(s, rules, path)
  }
})

// A tags value is a set too, as a product's own tags are: a tag sent twice would be kept twice.
const tags = stringArray(() => {
  const seen = new Set<string>()
  return (s, rules, path) => {
    if (s.length === 0) return [{ path, message: "must not be empty", code: "too_small" }]
    if (seen.has(s)) return [{ path, message: `tag ${shown(s)} is already listed`, code: "duplicate_entry" }]
    seen.add(s)
    return stringIssues(s, rules, path)
  }
})

const uuid = (what: string): ValueValidator => (value, _rules, path) =>
  typeof value === "string" && isUuid(value) ? Either.right(value.toLowerCase()) : fail(path, `must be the uuid of ${what}`, "invalid_type")

/** An object with exactly `keys`; answers the issues of missing and unknown keys. */
const shapeIssues = (value: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>, path: Path): ReadonlyArray<Issue> => [
  ...keys.filter((k) => !Object.hasOwn(value, k)).map((k) => ({ path: [...path, k], message: `${k} is required`, code: "required" })),
  ...Object.keys(value).filter((k) => !keys.includes(k)).map((k) => ({ path: [...path, k], message: `unknown key ${shown(k)}`, code: "unrecognized_key" }))
]

const measurement: ValueValidator = (value, rules, path) => {
  if (!isRecord(value)) return fail(path, "must be {amount: number, unit: string}", "invalid_type")
  const issues = [...shapeIssues(value, ["amount", "unit"], path)]
  const { amount, unit } = value
  if (Object.hasOwn(value, "amount")) {
    if (typeof amount !== "number" || !Number.isFinite(amount)) issues.push({ path: [...path, "amount"], message: "must be a finite number", code: "invalid_type" })
    else issues.push(...rangeIssues(amount, rules, [...path, "amount"]))
  }
  if (Object.hasOwn(value, "unit")) {
    const units = listRule(rules, "units")
    if (typeof unit !== "string" || unit.length === 0) issues.push({ path: [...path, "unit"], message: "must be a non-empty string", code: "invalid_type" })
    else if (units !== undefined && !units.has(unit)) issues.push({ path: [...path, "unit"], message: oneOf(units), code: "invalid_option" })
  }
  return collect(value, issues)
}

// The WHATWG parser repairs what is not a URL (`http:/host`, `https://host/a b`, a `\` read as
// `/`): the text itself must already be scheme, `//` and the rest without white space, control
// characters or backslashes.
const URL_TEXT = /^https?:\/\/[^\s\u0000-\u001f\u007f\\]+$/i

const url: ValueValidator = (value, rules, path) => {
  if (typeof value !== "string" || !URL_TEXT.test(value) || !URL.canParse(value)) return fail(path, "must be an absolute http(s) URL", "invalid_type")
  const parsed = new URL(value)
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname.length === 0) {
    return fail(path, "must be an absolute http(s) URL", "invalid_type")
  }
  return collect(value, stringIssues(value, rules, path))
}

const email: ValueValidator = (value, rules, path) =>
  typeof value === "string" && isEmailAddress(value)
    ? collect(value, stringIssues(value, rules, path))
    : fail(path, "must be an email address", "invalid_type")

const json: ValueValidator = (value, _rules, path) =>
  isJsonValue(value) ? Either.right(value) : fail(path, "must be a JSON value", "invalid_type")

const money: ValueValidator = (value, rules, path) => {
  if (!isRecord(value)) return fail(path, "must be {amount_cents: integer, currency: ISO 4217 code}", "invalid_type")
  const issues = [...shapeIssues(value, ["amount_cents", "currency"], path)]
  const { amount_cents, currency } = value
  if (Object.hasOwn(value, "amount_cents")) {
    if (typeof amount_cents !== "number" || !Number.isSafeInteger(amount_cents)) {
      issues.push({ path: [...path, "amount_cents"], message: AMOUNT_CENTS_MESSAGE, code: "invalid_type" })
    } else issues.push(...rangeIssues(amount_cents, rules, [...path, "amount_cents"]))
  }
  if (Object.hasOwn(value, "currency")) {
    const currencies = listRule(rules, "currencies")
    if (typeof currency !== "string" || !isCurrencyCode(currency)) {
      issues.push({ path: [...path, "currency"], message: "must be an ISO 4217 code such as EUR", code: "invalid_type" })
    } else if (currencies !== undefined && !currencies.has(currency)) {
      issues.push({ path: [...path, "currency"], message: oneOf(currencies), code: "invalid_option" })
    }
  }
  return collect(value, issues)
}

/** One validator per attribute type: the value shapes of DESIGN.md and the `validation` keys each honours. */
export const VALUE_VALIDATORS: Readonly<Record<AttributeType, ValueValidator>> = {
  text,
  textarea: text,
  richtext: text,
  number,
  decimal,
  boolean,
  date,
  datetime,
  select,
  multiselect,
  reference: uuid("a record"),
  media: uuid("a media record"),
  measurement,
  url,
  email,
  json,
  money,
  tags,
  file: uuid("a media record")
}
