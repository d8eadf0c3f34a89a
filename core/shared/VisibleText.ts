// Anything but white space and invisible format characters (soft hyphen, zero-width space, ...).
const VISIBLE = /[^\s\p{Cf}]/u

/** Whether the text shows anything: not only white space and invisible format characters. */
export const hasVisibleText = (text: string): boolean => VISIBLE.test(text)
