/** Whether `s` is `YYYY-MM-DD` naming a day that exists (no 2026-02-30, which `Date` would roll over). */
export const isCalendarDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

const DATETIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i

// Instants are stored and compared as ISO text in UTC, which orders only with a four-digit
// year: an offset may carry 9999-12-31T23:59-23:59 into year 10000, written +010000-...
const FIRST_INSTANT = Date.parse("0000-01-01T00:00:00Z")
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z")

/** Why a text is no date-time `datetimeMillis` takes: each condition, as a well-formed one past 9999 in UTC fails too. */
export const DATETIME_MESSAGE = "must be an ISO 8601 date-time with a zone, on a day that exists, in the years 0000 to 9999 once in UTC"

/**
 * The instant of an ISO 8601 date-time with a zone on a day that exists, in the years 0000
 * to 9999 once in UTC; undefined for anything else.
 */
export const datetimeMillis = (s: string): number | undefined => {
  const m = DATETIME.exec(s)
  if (m === null || m[1] === undefined || !isCalendarDate(m[1])) return undefined
  const t = Date.parse(s)
  return Number.isNaN(t) || t < FIRST_INSTANT || t > LAST_INSTANT ? undefined : t
}

/**
 * A date-time `datetimeMillis` takes, written in UTC with the precision it was sent with:
 * `2024-01-01T10:00:00.5+02:00` is `2024-01-01T08:00:00.5Z`. Digits past the millisecond are
 * kept, as no offset moves them.
 */
export const toUtcText = (s: string): string => {
  const m = DATETIME.exec(s)
  if (m === null) return s
  const seconds = m[3]
  const fraction = m[4]
  const iso = new Date(Date.parse(s)).toISOString()
  if (seconds === undefined) return `${iso.slice(0, 16)}Z`
  if (fraction === undefined) return `${iso.slice(0, 19)}Z`
  const digits = fraction.length - 1
  return `${iso.slice(0, 19)}.${(iso.slice(20, 23) + fraction.slice(4)).slice(0, digits)}Z`
}

/**
 * One text per instant: the UTC form with seconds and without trailing zeros in the fraction,
 * so `10:00Z`, `10:00:00.000Z` and `12:00:00+02:00` are one instant, written `10:00:00Z`.
 */
export const canonicalInstant = (s: string): string => {
  const m = /^(.{16})(?::(\d{2})(?:\.(\d+))?)?Z$/.exec(toUtcText(s))
  if (m === null) return s
  const fraction = (m[3] ?? "").replace(/0+$/, "")
  return `${m[1]}:${m[2] ?? "00"}${fraction === "" ? "" : `.${fraction}`}Z`
}

/**
 * Orders two date-times `datetimeMillis` takes by their instants, digits past the millisecond
 * included: `23:59:59.0001Z` is after `23:59:59Z`, which the milliseconds alone would call equal.
 */
export const compareInstants = (a: string, b: string): -1 | 0 | 1 => {
  // `YYYY-MM-DDTHH:MM:SS[.fraction]Z`: the first 19 characters order as text (four-digit years).
  const [x, y] = [canonicalInstant(a), canonicalInstant(b)]
  const [xs, ys] = [x.slice(0, 19), y.slice(0, 19)]
  if (xs !== ys) return xs < ys ? -1 : 1
  const [xf, yf] = [x.slice(20, -1), y.slice(20, -1)]
  const width = Math.max(xf.length, yf.length)
  const [xp, yp] = [xf.padEnd(width, "0"), yf.padEnd(width, "0")]
  return xp === yp ? 0 : xp < yp ? -1 : 1
}

/**
 * A lower or upper bound on stored instants (ISO in UTC, whole milliseconds): the first whole
 * millisecond at or after the date-time `s`. One between two milliseconds moves up to the
 * next, so an inclusive lower bound and an exclusive upper bound keep their meaning. Past the
 * last millisecond of 9999 that is the end of its last day, written `24:00` as ISO 8601
 * allows, which orders as text after every stored instant (year 10000 would not).
 */
export const millisecondBound = (s: string): string => {
  const submillis = /\.\d{3}(\d+)/.exec(s)?.[1] ?? ""
  const millis = Date.parse(s) + (/[1-9]/.test(submillis) ? 1 : 0)
  return millis > LAST_INSTANT ? "9999-12-31T24:00:00.000Z" : new Date(millis).toISOString()
}

/**
 * The midnight after the day `YYYY-MM-DD` (a day `isCalendarDate` takes), as a bound on stored
 * instants: after the last day of 9999, `9999-12-31T24:00:00.000Z`, as `millisecondBound` writes it.
 */
export const nextMidnight = (day: string): string => {
  const next = Date.parse(day) + 86_400_000
  return next > LAST_INSTANT ? "9999-12-31T24:00:00.000Z" : new Date(next).toISOString()
}
