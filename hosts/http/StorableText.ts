import { Either } from "effect"
import { type TextIssue, unstorableStrings } from "../../core/shared/UntrustedInput.js"

/**
 * Issues for the strings of a JSON object other than those of its array member `key`: the
 * body of a request whose items each stand alone, which checks every item by itself.
 */
export const unstorableStringsBesides = (value: unknown, key: string): Array<TextIssue> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return unstorableStrings(value)
  const record = value as Readonly<Record<string, unknown>>
  if (!Object.hasOwn(record, key) || !Array.isArray(record[key])) return unstorableStrings(value)
  return Object.entries(record).flatMap(([k, v]) => (k === key ? [] : unstorableStrings(Object.fromEntries([[k, v]]))))
}

const ESCAPED = /\\u(0000|d[89a-f][0-9a-f]{2})/i

/**
 * Whether JSON text may hold such a string: in valid JSON both can only be written as the
 * escapes `\u0000` and `\ud800` to `\udfff` (a raw U+0000 is not valid JSON, and undecodable
 * bytes arrive as U+FFFD), so text without one needs no parse. Clients that escape all
 * non-ASCII text (`\u00e9`) pay nothing for it.
 */
export const mayHoldUnstorable = (jsonText: string): boolean => ESCAPED.test(jsonText)

/** Issues for query parameters (keys and values) that cannot be stored or compared. */
export const unstorableParams = (params: URLSearchParams): Array<TextIssue> =>
  [...params].flatMap(([k, v]) => unstorableStrings({ [k]: v }))

const decodes = (text: string) => Either.isRight(Either.try(() => decodeURIComponent(text)))

/**
 * Issues for the keys and values of a raw query whose escapes do not decode (`%ZZ`, or `%E9`,
 * Latin-1 and not UTF-8): the router keeps such text as sent, and a filter would compare with
 * the escapes themselves.
 */
export const undecodableParams = (query: string): Array<TextIssue> =>
  query.split("&").flatMap((pair) => {
    const [key = "", value = ""] = pair.replace(/\+/g, " ").split(/=(.*)/s)
    if (decodes(key) && decodes(value)) return []
    return [{ path: [decodes(key) ? decodeURIComponent(key) : key], message: "must be percent-encoded UTF-8", code: "invalid_character" as const }]
  })
