import type { RunnerTask, RunnerTestFile } from "vitest"
import type { Reporter } from "vitest/reporters"

const count = (tasks: ReadonlyArray<RunnerTask>, totals: { passed: number; failed: number; skipped: number }) => {
  for (const task of tasks) {
    if (task.type === "suite") count(task.tasks, totals)
    else if (task.result?.state === "pass") totals.passed++
    else if (task.result?.state === "fail") totals.failed++
    else totals.skipped++
  }
}

/** Ends the run with the plain line `N passed, N failed, N skipped` that CI reads. */
export default class SummaryReporter implements Reporter {
  onFinished(files: ReadonlyArray<RunnerTestFile> = [], errors: ReadonlyArray<unknown> = []) {
    const totals = { passed: 0, failed: 0, skipped: 0 }
    count(files, totals)
    const failed = totals.failed + errors.length + files.filter((f) => f.result?.state === "fail" && f.tasks.length === 0).length
    process.stdout.write(`\n${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped\n`)
  }
}
