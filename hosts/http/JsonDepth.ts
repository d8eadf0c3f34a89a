/**
 * Whether JSON text nests arrays and objects deeper than `max`, counting brackets outside
 * strings. The checks after the parse (storable text, attribute values) recurse, and a body
 * of 100,000 nested arrays would exhaust their stack.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}
