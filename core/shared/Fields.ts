import { JSONSchema, Schema } from "effect"
import { DATETIME_MESSAGE, datetimeMillis } from "./Calendar.js"
import { BoundedMap } from "./Bounded.js"
import { shown } from "./Preview.js"
import { hasVisibleText } from "./VisibleText.js"

/** Refuses keys the schema does not declare (instead of dropping them silently), and reports every issue, not only the first. */
export const strict = { parseOptions: { onExcessProperty: "error", errors: "all" } } as const

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether `s` is a UUID, in either case. */
export const isUuid = (s: string): boolean => UUID_PATTERN.test(s)

/**
 * A UUID, lower-cased on the way in: ids are stored lower-case, and `ABC…` names the same record as `abc…`.
 * The interface's document says what it takes, a UUID in either case, not the lower-casing it is read through.
 */
export const Uuid = Schema.compose(Schema.Lowercase, Schema.UUID.annotations({ message: () => "must be a UUID" }))
  .annotations({ jsonSchema: { type: "string", format: "uuid" } })

/** A slug: what URLs and imports name a record by, so it has the length of an identifier. */
export const Slug = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(255, { message: () => "must be at most 255 characters" }),
  Schema.pattern(/^[a-z0-9-]+$/, { message: () => "must match ^[a-z0-9-]+$" })
)

/** A code: a key of stored values and of every query that names them. */
export const Code = Schema.String.pipe(
  Schema.maxLength(100, { message: () => "must be at most 100 characters" }),
  Schema.pattern(/^[a-z][a-z0-9_]*$/, { message: () => "must match ^[a-z][a-z0-9_]*$" })
)

/**
 * A query integer written in decimal digits ("12", "-3"). `Number` alone would also take hex,
 * exponents, a "+" and blanks around the digits ("0x10", "1e2", " 5").
 */
export const IntegerText = (message: string, description?: string) =>
  Schema.compose(
    Schema.String.pipe(
      Schema.pattern(/^-?\d+$/, { message: () => message }),
      // What the interface's document says of the parameter, which it reads off this side.
      Schema.annotations(description === undefined ? {} : { description })
    ),
    Schema.NumberFromString
  )

/** An integer query parameter within bounds, described with them and its default, refused with them. */
export const IntegerParam = (min: number, max: number, fallback?: number) => {
  const message = `must be an integer from ${min} to ${max}`
  return IntegerText(message, `an integer from ${min} to ${max}${fallback === undefined ? "" : `; ${fallback} when absent`}`).pipe(
    Schema.int({ message: () => message }),
    Schema.between(min, max, { message: () => message })
  ).annotations({ message: () => message })
}

/** A query number in decimal notation, with an optional fraction and exponent ("-3", "12.5", "1e3"). */
export const NumberText = (message: string, description?: string) =>
  Schema.compose(
    Schema.String.pipe(
      Schema.pattern(/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/, { message: () => message }),
      Schema.annotations(description === undefined ? {} : { description })
    ),
    Schema.NumberFromString
  )

/** The largest position the databases store (Postgres `integer`). */
export const MAX_POSITION = 2147483647

/** The position after `last`: one past it, or the largest there is when `last` is that already. */
export const positionAfter = (last: number): number => Math.min(last + 1, MAX_POSITION)

/** A position: an integer the databases store in 32 bits (Postgres `integer`). */
export const Position = Schema.Int.pipe(
  Schema.between(-2147483648, MAX_POSITION, { message: () => "must be an integer from -2147483648 to 2147483647" })
).annotations({ message: () => "must be an integer from -2147483648 to 2147483647" })

export const POSITION_FROM_ZERO = `must be an integer from 0 to ${MAX_POSITION}`

/** A position in a list that starts at 0 (a product's variants and media). */
export const PositionFromZero = Schema.Number.pipe(
  Schema.int({ message: () => POSITION_FROM_ZERO }),
  Schema.between(0, MAX_POSITION, { message: () => POSITION_FROM_ZERO })
)

/** Why a money amount is refused: past these bounds a JSON number no longer holds the integer exactly. */
export const AMOUNT_CENTS_MESSAGE = "must be an integer number of cents from -9007199254740991 to 9007199254740991"

/** A money amount in cents: an integer a JSON number holds exactly. */
export const AmountCents = Schema.Number.pipe(Schema.filter(Number.isSafeInteger, { message: () => AMOUNT_CENTS_MESSAGE }))

export const NonEmptyString = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))

/** At most `max` characters, counted as code points, not UTF-16 units (`Schema.maxLength` counts units). */
export const maxCharacters = (max: number, message: string) => <I, R>(self: Schema.Schema<string, I, R>) =>
  self.pipe(Schema.filter((s) => Array.from(s).length <= max, { message: () => message, jsonSchema: { maxLength: max } }))

/** How long a search (`q`) may be: more words than that describe no record better. */
export const MAX_QUERY_LENGTH = 200

/** The `q` of every list that searches: products, categories, brands. */
export const SearchQuery = Schema.String.pipe(maxCharacters(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`))

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Why Postgres cannot store `s`, if it cannot: U+0000 (in text and jsonb) or an unpaired
 * UTF-16 surrogate (in jsonb). Such text is refused on every database alike.
 */
export const unstorableText = (s: string): string | undefined =>
  s.includes("\u0000")
    ? "must not contain the character U+0000"
    : UNPAIRED_SURROGATE.test(s)
    ? "must not contain an unpaired UTF-16 surrogate"
    : undefined

const BLANK_OR_CONTROL = /[\s\p{Cc}]/u

/**
 * One address syntax for attribute values, invites and sessions: no white space or control
 * characters, one `@`, a dotted domain (dots only between labels). Checked by parts, not with
 * one regular expression: with a dot allowed anywhere a long invalid value backtracked in time
 * square to its length (80 KB held the process for 5 s), and with a group per label a domain of
 * millions of labels overflowed the engine's stack (a 500).
 */
export const isEmailAddress = (s: string): boolean => {
  const at = s.indexOf("@")
  if (at <= 0 || s.includes("@", at + 1) || BLANK_OR_CONTROL.test(s)) return false
  const labels = s.slice(at + 1).split(".")
  return labels.length >= 2 && labels.every((label) => label.length > 0)
}

/**
 * A record's name or title: lists sort by it and indexes hold it, so it has a bound. One of
 * spaces or invisible characters alone names nothing a list or a storefront could show; it is
 * stored as sent otherwise, untrimmed.
 */
export const Name = NonEmptyString.pipe(
  maxCharacters(255, "must be at most 255 characters"),
  Schema.filter((name) => hasVisibleText(name) || "must hold more than spaces and invisible characters")
)

/**
 * A JSON object of any keys, passed on as it was parsed. Decoding it as a record would make a
 * `__proto__` key the object's prototype: the key would vanish, yet still be read through.
 */
export const OpenObject = (annotations: { readonly identifier: string; readonly description: string; readonly message: string }) => {
  const shape = Schema.Record({ key: Schema.String, value: Schema.Unknown })
  const { $schema: _, ...jsonSchema } = JSONSchema.make(shape)
  return Schema.declare(
    (u): u is typeof shape.Type => typeof u === "object" && u !== null && !Array.isArray(u),
    { ...annotations, message: () => annotations.message, jsonSchema }
  )
}

/** An ISO 8601 date-time with an explicit zone, kept as the string sent. */
export const DateTimeString = Schema.String.pipe(
  Schema.filter((s) => datetimeMillis(s) !== undefined, {
    message: () => DATETIME_MESSAGE,
    jsonSchema: { format: "date-time" }
  })
)

/** An instant as it goes on the wire: ISO 8601 in UTC with milliseconds. */
export const Timestamp = Schema.String.annotations({ jsonSchema: { format: "date-time" } })

export const toTimestamp = (millis: number): string => new Date(millis).toISOString()

/**
 * A map of names to text (labels by locale, a connector's extra headers). Decoded as a record,
 * a `__proto__` key would become the map's prototype and vanish from what is stored while the
 * write answered success: it is refused, as a key the map does not take.
 */
export const TextMap = Schema.Record({
  key: Schema.String.pipe(Schema.filter((key) => key !== "__proto__", {
    title: "a key other than __proto__",
    jsonSchema: { not: { const: "__proto__" } }
  })),
  value: Schema.String
}).annotations(strict)

/** How many locales a label holds at most: CLDR names about a thousand. */
const MAX_LABEL_LOCALES = 1000

/** Map of locale to text. */
export const LocalizedLabel = BoundedMap(TextMap, MAX_LABEL_LOCALES, `at most ${MAX_LABEL_LOCALES} locales`)

/** The keys of a label that name a locale an earlier key names already, in another case (`en-us` after `en-US`). */
const repeatedLocales = (label: Readonly<Record<string, string>>): Array<string> => {
  const seen = new Set<string>()
  return Object.keys(label).filter((key) => {
    const locale = key.toLowerCase()
    if (!seen.has(locale)) {
      seen.add(locale)
      return false
    }
    return true
  })
}

/**
 * BCP 47 (RFC 5646, 4.4.1) has implementations take tags of at most 35 characters, which every
 * registered language, script and region combination fits. A locale holds no white space or
 * control character: ` en` or `en\n` would be one no request asks for.
 */
export const MAX_LOCALE_LENGTH = 35

const localeKeyProblem = (key: string): string | undefined =>
  key.length === 0
    ? "must name a locale"
    : Array.from(key).length > MAX_LOCALE_LENGTH
    ? `must name a locale of at most ${MAX_LOCALE_LENGTH} characters`
    : BLANK_OR_CONTROL.test(key)
    ? "must name a locale, without white space or control characters"
    : undefined

/**
 * A label as written: one key per locale, each naming one. A locale is one locale whatever its
 * case, so `en-US` and `en-us` in one label would leave which text `?locale=en-us` reads to the
 * order a database keeps the keys in (SQLite one answer, Postgres the other). An empty key names
 * none, as an empty `locale` of a value does not, yet a facet falling back to the first key
 * in code point order would show its text.
 */
export const LabelInput = LocalizedLabel.pipe(Schema.filter((label) => [
  ...Object.keys(label).flatMap((key): Array<Schema.FilterIssue> => {
    const problem = localeKeyProblem(key)
    return problem === undefined ? [] : [{ path: [key], message: problem }]
  }),
  ...repeatedLocales(label).map((key): Schema.FilterIssue => ({ path: [key], message: `names the locale ${shown(key.toLowerCase())} again` }))
], { jsonSchema: { propertyNames: { type: "string", minLength: 1, maxLength: MAX_LOCALE_LENGTH, not: { const: "__proto__" } } } }))
