import type { Issue } from "../shared/Errors.js"
import { shown } from "../shared/Preview.js"
import { compilePattern } from "./Pattern.js"

const isLength = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v >= 0
const isBound = (v: unknown): boolean => typeof v === "string" || (typeof v === "number" && Number.isFinite(v))
const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((item) => typeof item === "string")

const LENGTH = [isLength, "must be an integer of 0 or more"] as const
const BOUND = [isBound, "must be a number, or a string (a decimal, a date or a date-time)"] as const
const STRINGS = [isStringList, "must be an array of strings"] as const

/** What each honoured key must hold to be read at all, whatever the attribute's type. */
const SHAPES: ReadonlyArray<readonly [string, readonly [(v: unknown) => boolean, string]]> = [
  ["minLength", LENGTH],
  ["maxLength", LENGTH],
  ["min", BOUND],
  ["max", BOUND],
  ["options", [Array.isArray, "must be an array of strings or of objects naming a code or value"]],
  ["units", STRINGS],
  ["currencies", STRINGS]
]

const patternIssue = (pattern: unknown): ReadonlyArray<Issue> =>
  typeof pattern !== "string"
    ? [{ path: ["validation", "pattern"], message: "must be a regular expression, as a string", code: "invalid_type" }]
    : compilePattern(pattern) === undefined
    ? [{ path: ["validation", "pattern"], message: `is not a regular expression: ${shown(pattern)}`, code: "invalid_pattern" }]
    : []

/** A rule null or absent sets nothing, as a form with an empty field sends it. */
const isSet = (validation: Readonly<Record<string, unknown>>, key: string): boolean =>
  Object.hasOwn(validation, key) && validation[key] !== null

/**
 * The issues of a `validation` object's honoured keys that no check could read: a rule sent as
 * `maxLength: "10"`, or a `pattern` that does not compile, would never refuse a value while the
 * attribute looked guarded. Other keys are the client's own (`validation` is free-form) and kept.
 */
export const ruleIssues = (validation: Readonly<Record<string, unknown>> | null | undefined): ReadonlyArray<Issue> => {
  if (validation === null || validation === undefined) return []
  return [
    ...(isSet(validation, "pattern") ? patternIssue(validation["pattern"]) : []),
    ...SHAPES.flatMap(([key, [fits, message]]): Array<Issue> =>
      isSet(validation, key) && !fits(validation[key]) ? [{ path: ["validation", key], message, code: "invalid_type" }] : [])
  ]
}
