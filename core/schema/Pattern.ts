/**
 * An attribute's `pattern` as a regular expression: in Unicode mode, where it compiles so
 * (`.` and classes then match characters, not UTF-16 halves), else as written in the many
 * dialects that allow needless escapes such as `\-` or `\@`, which Unicode mode refuses.
 * `undefined` when it compiles neither way.
 */
export const compilePattern = (source: string): RegExp | undefined => {
  try {
    return new RegExp(source, "u")
  } catch {
    try {
      return new RegExp(source)
    } catch {
      return undefined
    }
  }
}
