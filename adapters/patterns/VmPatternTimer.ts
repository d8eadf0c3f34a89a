import { Layer, Option } from "effect"
import { performance } from "node:perf_hooks"
import { createContext, Script } from "node:vm"
import { PatternTimer } from "../../core/schema/PatternTimer.js"

/**
 * Node stops a script that runs past a `vm` timeout, a regular expression's backtracking
 * included, and throws in the caller; the check is called from the script, so the limit
 * holds for all of it. Starting the watchdog costs about 0.05 ms a call.
 */
export const layer = Layer.sync(PatternTimer, () => {
  const sandbox = createContext({ check: (): unknown => undefined })
  const run = new Script("check()")
  return PatternTimer.of({
    within: <A>(millis: number, check: () => A) => {
      const started = performance.now()
      sandbox["check"] = check
      try {
        const result = run.runInContext(sandbox, { timeout: Math.max(1, Math.ceil(millis)) }) as A
        return { result: Option.some(result), millis: performance.now() - started }
      } catch (error) {
        if ((error as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
          return { result: Option.none(), millis: performance.now() - started }
        }
        throw error
      } finally {
        sandbox["check"] = (): unknown => undefined
      }
    }
  })
})
