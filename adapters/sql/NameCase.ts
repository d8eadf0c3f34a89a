/** Columns are snake_case in the database and camelCase in code. */
export const camelToSnake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

const toCamel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
// Every column of every row passes through here; the names are few, so remember them.
const camelNames = new Map<string, string>()
const CAMEL_NAMES_CAPACITY = 10_000

export const snakeToCamel = (s: string): string => {
  let name = camelNames.get(s)
  if (name === undefined) {
    if (camelNames.size >= CAMEL_NAMES_CAPACITY) camelNames.clear()
    name = toCamel(s)
    camelNames.set(s, name)
  }
  return name
}
