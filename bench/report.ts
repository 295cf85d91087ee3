/** One row of docs/benchmarks.md: a figure next to a baseline measured in the same run. */
export interface BenchRow {
  /** Which benchmark, e.g. "child start to initialize (median of 20)". */
  name: string;
  figure: number;
  baseline: number;
  /** Unit of figure and baseline, e.g. "ms", "req/s", "MB/s", "MB". */
  unit: string;
  /** What the baseline is, e.g. `bare node -e ""`. */
  baselineName: string;
  /**
   * Ratio as reported: figure / baseline. For "lower is better" units say so in `note`.
   */
  note?: string;
}

export interface Bench {
  title: string;
  /** Prose printed under the section's title: what is compared, how, and the caveats. */
  about?: string;
  /** No rows: the bench was skipped (it said why), and the file keeps its previous section. */
  run(): Promise<BenchRow[]>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}
