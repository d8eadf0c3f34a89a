/** About how many characters of a refused value a message shows. */
export const PREVIEW_CHARACTERS = 200

/** `text`, or its first `PREVIEW_CHARACTERS` and `…` where it is longer: a key or value a message names. */
export const shown = (text: string): string => (text.length <= PREVIEW_CHARACTERS ? text : `${text.slice(0, PREVIEW_CHARACTERS)}…`)

/**
 * The start of a JSON value as text, cut at about `PREVIEW_CHARACTERS` and marked `…` where
 * cut; `undefined` where the whole value fits (or is no JSON value), to be shown as it is. Only
 * what is shown is read, so a value of millions of items or characters costs what a short one
 * does.
 */
export const preview = (value: unknown): string | undefined => {
  let left = PREVIEW_CHARACTERS
  let cut = false
  let json = true
  const spend = (text: string) => {
    left -= text.length
    return text
  }
  const go = (v: unknown): string => {
    if (left <= 0) {
      cut = true
      return "…"
    }
    if (typeof v === "string") {
      if (v.length + 2 <= left) return spend(JSON.stringify(v))
      cut = true
      left = 0
      return `${JSON.stringify(v.slice(0, PREVIEW_CHARACTERS)).slice(0, -1)}…"`
    }
    if (typeof v === "number" || typeof v === "boolean" || v === null) return spend(String(v))
    if (Array.isArray(v)) {
      const items: Array<string> = []
      spend("[]")
      for (const item of v) {
        if (items.length > 0) spend(",")
        items.push(go(item))
        if (cut) break
      }
      return `[${items.join(",")}]`
    }
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const entries: Array<string> = []
      spend("{}")
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        if (entries.length > 0) spend(",")
        if (key.length + 3 > left) {
          cut = true
          entries.push("…")
          break
        }
        const k = spend(JSON.stringify(key))
        spend(":")
        entries.push(`${k}:${go((v as Record<string, unknown>)[key])}`)
        if (cut) break
      }
      return `{${entries.join(",")}}`
    }
    json = false
    return ""
  }
  const text = go(value)
  return cut && json ? text : undefined
}
