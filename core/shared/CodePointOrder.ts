/**
 * Text in code point order, as SQLite's binary collation and Postgres' `C` collation order
 * UTF-8 (`ｚ`, U+FF5A, before `𝐀`, U+1D400). JavaScript's `<` and `sort()` compare UTF-16
 * units, which put a character past U+FFFF before U+E000 to U+FFFF.
 */
export const byCodePoint = (a: string, b: string): number => {
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const x = a.codePointAt(i)!
    const y = b.codePointAt(j)!
    if (x !== y) return x - y
    i += x > 0xffff ? 2 : 1
    j += y > 0xffff ? 2 : 1
  }
  return a.length - b.length
}
