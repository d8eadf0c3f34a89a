import { writeAxisKeys } from "./AxisKeys.js"

/**
 * Variants' stored axis keys are made again as they are compared today: by attribute id rather
 * than code, a locale in one case, decimals, date-times, multiselects and tags in one form each.
 * Keys written before stayed as they were until their variant was written again, so the
 * database did not catch two concurrent writes of one combination spelt two ways.
 */
export default writeAxisKeys
