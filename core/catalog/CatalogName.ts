import { Schema } from "effect"
import { Name } from "../shared/Fields.js"
import { hasVisibleText } from "../shared/VisibleText.js"

/**
 * A category's or brand's name: names are compared ignoring case and spacing, so one of
 * spaces or invisible characters alone would be no name at all.
 */
export const CatalogName = Name.pipe(
  Schema.filter((name) => hasVisibleText(name) || "must hold more than spaces and invisible characters")
)
