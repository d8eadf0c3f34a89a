import { Schema } from "effect"
import { isCurrencyCode } from "../shared/Currencies.js"
import type { Issue } from "../shared/Errors.js"
import { BoundedArray } from "../shared/Bounded.js"
import { ClosedStruct } from "../shared/Closed.js"
import { AmountCents, Code, LabelInput, LocalizedLabel, Name, NonEmptyString, Timestamp, Uuid } from "../shared/Fields.js"

/** How a shopper fills the modifier in: a choice among options, or a free value. */
export const ModifierType = Schema.Literal("select", "multiselect", "text", "number", "boolean")
export type ModifierType = typeof ModifierType.Type

/** As money values and an organization's currency say it; the path names the option. */
const CURRENCY_MESSAGE = "must be an ISO 4217 code such as EUR"

/** Money as everywhere in the API: a closed map, so a misspelt key is refused rather than dropped. */
const Money = ClosedStruct({
  amount_cents: AmountCents,
  currency: Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/, { message: () => CURRENCY_MESSAGE }))
})

export const ModifierOption = Schema.Struct({
  value: NonEmptyString,
  label: Schema.optional(Schema.Union(Schema.String, LocalizedLabel)),
  priceAdjustment: Schema.optional(Money)
})
export type ModifierOption = typeof ModifierOption.Type

/** A product option chosen at purchase (engraving, size of a gift box), defined once and attached to products. */
export class Modifier extends Schema.Class<Modifier>("Modifier")({
  id: Uuid,
  organizationId: Uuid,
  code: Schema.String,
  name: Schema.String,
  type: ModifierType,
  options: Schema.Array(ModifierOption),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

const MAX_MODIFIER_OPTIONS = 1000

/** An option as written: its label holds one key per locale, as other labels do (`en-US` and `en-us` are one). */
const ModifierOptionInput = Schema.Struct({
  ...ModifierOption.fields,
  label: Schema.optional(Schema.Union(Schema.String, LabelInput))
})

const ModifierOptions = BoundedArray(ModifierOptionInput, MAX_MODIFIER_OPTIONS, `at most ${MAX_MODIFIER_OPTIONS} options`)

export const CreateModifier = Schema.Struct({
  code: Code,
  name: Name,
  type: ModifierType,
  options: Schema.optional(ModifierOptions)
})
export type CreateModifier = typeof CreateModifier.Type

export const UpdateModifier = Schema.Struct({
  code: Schema.optional(Code),
  name: Schema.optional(Name),
  type: Schema.optional(ModifierType),
  options: Schema.optional(ModifierOptions)
})
export type UpdateModifier = typeof UpdateModifier.Type

const isChoice = (type: ModifierType) => type === "select" || type === "multiselect"

/** Choices need options with distinct values and known currencies; free values take none. Answers the issues found, each at its option. */
export const optionIssues = (type: ModifierType, options: ReadonlyArray<ModifierOption>): Array<Issue> => {
  const issue = (path: ReadonlyArray<string | number>, message: string): Issue => ({ path: ["options", ...path], message, code: "invalid_options" })
  if (!isChoice(type)) return options.length > 0 ? [issue([], `a ${type} modifier takes no options`)] : []
  if (options.length === 0) return [issue([], `a ${type} modifier needs at least one option`)]
  const seen = new Set<string>()
  return options.flatMap((o, index) => {
    const repeated = seen.has(o.value)
    seen.add(o.value)
    const currency = o.priceAdjustment?.currency
    return [
      ...(repeated ? [issue([index, "value"], "option values must be distinct")] : []),
      ...(currency === undefined || isCurrencyCode(currency)
        ? []
        : [issue([index, "priceAdjustment", "currency"], CURRENCY_MESSAGE)])
    ]
  })
}
