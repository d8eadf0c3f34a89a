import { Schema } from "effect"
import { Name } from "../shared/Fields.js"

// Anything but white space and invisible format characters (soft hyphen, zero-width space, ...).
const VISIBLE = /[^\s\p{Cf}]/u

/**
 * A category's or brand's name: names are compared ignoring case and spacing, so one of
 * spaces or invisible characters alone would be no name at all.
 */
export const CatalogName = Name.pipe(
  Schema.filter((name) => VISIBLE.test(name) || "must hold more than spaces and invisible characters")
)
