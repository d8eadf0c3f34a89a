import { Either } from "effect"
import { ValidationFailed } from "../shared/Errors.js"
import { isRequiredOf, type Requirement, requirementOfIsRequired } from "./Attribute.js"
import { isRequiredOverrideOf } from "./Family.js"

const contradiction = (field: string, other: string) =>
  ValidationFailed.one([field], `contradicts ${other}; send ${other} alone (${field} is deprecated)`, "conflicting_fields")

/**
 * The requirement a write asks for: `requirement`, or the deprecated `isRequired` (true =
 * required, false = available). Both may be sent when they agree. Undefined: neither sent.
 */
export const requestedRequirement = (
  requirement: Requirement | undefined,
  isRequired: boolean | undefined
): Either.Either<Requirement | undefined, ValidationFailed> => {
  if (requirement !== undefined && isRequired !== undefined && isRequiredOf(requirement) !== isRequired) {
    return Either.left(contradiction("isRequired", "requirement"))
  }
  return Either.right(requirement ?? (isRequired === undefined ? undefined : requirementOfIsRequired(isRequired)))
}

/** The same for a family attachment's override, where null means "inherit". */
export const requestedOverride = (
  requirementOverride: Requirement | null | undefined,
  isRequiredOverride: boolean | null | undefined
): Either.Either<Requirement | null | undefined, ValidationFailed> => {
  if (requirementOverride !== undefined && isRequiredOverride !== undefined && isRequiredOverrideOf(requirementOverride) !== isRequiredOverride) {
    return Either.left(contradiction("isRequiredOverride", "requirementOverride"))
  }
  if (requirementOverride !== undefined) return Either.right(requirementOverride)
  if (isRequiredOverride === undefined) return Either.right(undefined)
  return Either.right(isRequiredOverride === null ? null : requirementOfIsRequired(isRequiredOverride))
}
