import { Effect, Either } from "effect"
import type { AttributeValues } from "../schema/AttributeValues.js"
import type { MediaRepository } from "../media/MediaRepository.js"
import { checkMediaValues } from "../media/MediaValues.js"
import { Families, type ProvisionedKind } from "../schema/Families.js"
import { ValidationFailed } from "../shared/Errors.js"
import { mergeValues, splitUndeclaredRemovals, withoutRemovals } from "../products/ProductValues.js"
import { type PatternTimer, valueChecks } from "../schema/PatternTimer.js"

/**
 * Checks category or brand `attributes` against that kind's provisioned family and merges
 * them into `current` (entries with `value: null` remove, also under codes the family no
 * longer declares). The family is provisioned only
 * when values are written.
 */
export const writeEntityAttributes = (
  families: typeof Families.Service,
  media: typeof MediaRepository.Service,
  timer: typeof PatternTimer.Service,
  organizationId: string,
  kind: ProvisionedKind,
  current: AttributeValues,
  input: Readonly<Record<string, unknown>> | undefined
) =>
  Effect.gen(function*() {
    if (input === undefined || Object.keys(input).length === 0) return { values: current, touched: [] as ReadonlyArray<string> }
    const schema = yield* families.provisioned(kind)
    const specs = new Map(schema.attributes.map((a) => [a.code, a]))
    const { declared, removals } = splitUndeclaredRemovals(specs, current, input)
    const checked = valueChecks(timer).values(specs, declared, ["attributes"], current)
    if (Either.isLeft(checked)) return yield* ValidationFailed.of(checked.left)
    yield* checkMediaValues(media, organizationId, specs, checked.right, current)
    const { merged, touched } = mergeValues(current, { ...checked.right, ...removals })
    return { values: withoutRemovals(merged), touched }
  })
