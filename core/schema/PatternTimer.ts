import { Context, Either, Option } from "effect"
import type { Issue } from "../shared/Errors.js"
import { type AttributeSpec, type AttributeValues, validateAttributeValues, validateValue } from "./AttributeValues.js"

type Path = ReadonlyArray<string | number>

/**
 * Runs a synchronous check under a time limit. An attribute's `pattern` is a regular expression
 * that an organization writes, and some backtrack for minutes on a short text (`^(a+)+$`),
 * holding the process and every other organization's requests with it.
 */
export class PatternTimer extends Context.Tag("catalog/PatternTimer")<PatternTimer, {
  /** The check's result, or none when it was stopped after `millis`; and the time it took. */
  readonly within: <A>(millis: number, check: () => A) => { readonly result: Option.Option<A>; readonly millis: number }
}>() {}

/** How long one request may spend checking values against attributes' patterns, in all. */
const PATTERN_BUDGET_MILLIS = 250

const hasPattern = (spec: AttributeSpec | undefined) => typeof spec?.validation?.["pattern"] === "string"
/** Whether `input` holds a value of an attribute with a pattern. */
const meetsPattern = (specs: ReadonlyMap<string, AttributeSpec>, input: unknown) =>
  typeof input === "object" && input !== null && Object.keys(input).some((code) => hasPattern(specs.get(code)))

const tooSlow = (path: Path): ReadonlyArray<Issue> => [{
  path,
  message: `checking the values against their attributes' patterns took over ${PATTERN_BUDGET_MILLIS} ms: simplify the pattern`,
  code: "pattern_too_slow"
}]

export interface ValueChecks {
  readonly values: (
    specs: ReadonlyMap<string, AttributeSpec>,
    input: unknown,
    path: Path,
    /** The record's values, if it has any: entries sent back as stored are checked for their type only. */
    stored?: AttributeValues
  ) => Either.Either<AttributeValues, ReadonlyArray<Issue>>
  readonly value: (spec: AttributeSpec, value: unknown, path: Path) => Either.Either<unknown, ReadonlyArray<Issue>>
}

/**
 * `validateAttributeValues` and `validateValue` for one request: checks that meet a pattern
 * run on the timer and share `PATTERN_BUDGET_MILLIS`, so that a bulk request cannot spend it
 * once per item. Checks without patterns run as they are.
 */
export const valueChecks = (timer: PatternTimer["Type"]): ValueChecks => {
  let left = PATTERN_BUDGET_MILLIS
  const timed = <A>(check: () => Either.Either<A, ReadonlyArray<Issue>>, path: Path) => {
    if (left <= 0) return Either.left(tooSlow(path))
    const { millis, result } = timer.within(left, check)
    left -= millis
    return Option.getOrElse(result, () => Either.left(tooSlow(path)))
  }
  return {
    values: (specs, input, path, stored) =>
      meetsPattern(specs, input)
        ? timed(() => validateAttributeValues(specs, input, path, stored), path)
        : validateAttributeValues(specs, input, path, stored),
    value: (spec, value, path) => hasPattern(spec) ? timed(() => validateValue(spec, value, path), path) : validateValue(spec, value, path)
  }
}
