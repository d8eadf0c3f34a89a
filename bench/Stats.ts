/** Latency samples in milliseconds and what they took in all. */
export interface Sample {
  readonly label: string
  readonly latencies: ReadonlyArray<number>
  readonly seconds: number
  /** Items handled per request (products per bulk call); 1 for reads. */
  readonly itemsPerRequest: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] ?? Number.NaN
}

export const summarize = (sample: Sample) => {
  const sorted = [...sample.latencies].sort((a, b) => a - b)
  return {
    label: sample.label,
    median: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    throughput: (sample.latencies.length * sample.itemsPerRequest) / sample.seconds
  }
}

export type Summary = ReturnType<typeof summarize>

/** Runs `task` `count` times with at most `concurrency` in flight; answers every latency. */
export const measure = async (
  label: string,
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  itemsPerRequest = 1
): Promise<Sample> => {
  const latencies: Array<number> = []
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < count) {
      const i = next++
      const t0 = performance.now()
      await task(i)
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
  return { label, latencies, seconds: (performance.now() - started) / 1000, itemsPerRequest }
}

/** Samples of one operation taken in several runs, as one. */
export const merged = (samples: ReadonlyArray<Sample>): Sample => ({
  label: samples[0]?.label ?? "",
  latencies: samples.flatMap((s) => s.latencies),
  seconds: samples.reduce((sum, s) => sum + s.seconds, 0),
  itemsPerRequest: samples[0]?.itemsPerRequest ?? 1
})

const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "-")

/** A markdown table: one row per summary, with an optional ratio against a baseline row. */
export const table = (title: string, rows: ReadonlyArray<{ summary: Summary; unit: string; ratio?: string }>): string => {
  const lines = [
    `### ${title}`,
    "",
    "| operation | median ms | p99 ms | throughput | ratio |",
    "|---|---:|---:|---:|---|"
  ]
  for (const { summary, unit, ratio } of rows) {
    lines.push(`| ${summary.label} | ${fixed(summary.median)} | ${fixed(summary.p99)} | ${fixed(summary.throughput, 0)} ${unit} | ${ratio ?? ""} |`)
  }
  return lines.join("\n")
}
