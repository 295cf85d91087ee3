import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { TestChild } from "../src/conformance/harness.js";
import { StoreBuilder } from "../test/fixtures/store-builder.js";
import {
  mbPerSecond,
  type ProbeResult,
  peakRssMb,
  probe,
  processCpuMs,
  schedulingNoise,
  withTempDir,
} from "./bench-support.js";
import { type Bench, type BenchRow, median, percentile } from "./report.js";

/** The reader's throughput is measured: the verdict cache (bench/verdicts.bench.ts) stays off. */
const READS_ALL = { MC_AGENT_VERDICTS: "off" };

/**
 * session.discover over a store of 2,000 histories (a few large) and over one huge history,
 * through a real child following cursors, next to a same-run baseline that reads every file and
 * JSON.parses every line. The sizes are the issue's: a 1 GiB store and a 2 GiB history. A third,
 * informational store has the same 2,000 histories at a quarter of the size, where the
 * per-history work weighs four times as much. About three minutes in all;
 * MC_BENCH_DISCOVER_SCALE scales every size (0.25 for a quick look). Generated files live in a
 * temp folder and are deleted afterwards.
 */
const MiB = 1024 * 1024;
const scale = Number(process.env.MC_BENCH_DISCOVER_SCALE ?? "1");

export interface DiscoverRun {
  bytes: number;
  ms: number;
  /** Date.now() when the listing started and ended (bench/loop-held.ts's clock). */
  window: [number, number];
  /** The child's CPU time during the listing: its main thread's, and all threads' together. */
  cpu: { main: number; all: number };
  peakRss: number;
  statusMs: number[];
  idleStatusP50: number;
  steps: number;
}

/**
 * Throughput rounds: a discovery scan and a baseline run, back to back. On the shared 2-core
 * machine this was built on, one run of either varies by a third from one run to the next (the
 * baseline alone took 520 to 1,330 ms on the same files, back to back); the fastest of a few
 * rounds then mostly says which side happened to catch a fast moment. The rows report the
 * medians of five alternating rounds, with the range of the five paired ratios in the note.
 *
 * Throughput is measured without other requests (a polling client competes for the same two
 * cores and its cost is the scheduler's, not the scan's); the status round trips come from a
 * separate scan polled every 5 ms, whose throughput is shown too.
 */
const ROUNDS = 5;

/**
 * One scan through a fresh child following cursors to completion. With `pollStatus`, a client
 * sends `status` every 5 ms meanwhile and the round trips are recorded.
 */
export async function discover(
  home: string,
  workspace: string,
  bytes: number,
  pollStatus: boolean,
  options: { command?: string[]; env?: Record<string, string> } = {},
): Promise<DiscoverRun> {
  const child = new TestChild({
    cwd: workspace,
    home,
    env: options.env ?? READS_ALL,
    ...(options.command ? { command: options.command } : {}),
  });
  await child.initialize(["session.discover"]);
  // The whole child loaded (the starter answers the initialize first: "Fast start").
  await child.call("status", {});
  const idle: number[] = [];
  for (let i = 0; i < 50 && pollStatus; i += 1) {
    const started = performance.now();
    await child.request("status", {});
    idle.push(performance.now() - started);
  }
  const statusMs: number[] = [];
  let running = pollStatus;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      await child.request("status", {});
      statusMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const started = performance.now();
  const cpuBefore = processCpuMs(child.pid);
  const wallStart = Date.now();
  let steps = 0;
  let cursor: string | null | undefined;
  do {
    const frame = await child.request(
      "session.discover",
      cursor ? { cursor } : {},
      undefined,
      60_000,
    );
    if (frame.error) throw new Error(`discovery failed: ${frame.error.code}`);
    steps += 1;
    cursor = (frame.result as { cursor: string | null }).cursor;
  } while (cursor);
  const ms = performance.now() - started;
  const cpuAfter = processCpuMs(child.pid);
  const window: [number, number] = [wallStart, Date.now()];
  const cpu = { main: cpuAfter.main - cpuBefore.main, all: cpuAfter.all - cpuBefore.all };
  running = false;
  await poller;
  const peakRss = peakRssMb(child.pid);
  await child.close();
  const idleStatusP50 = pollStatus ? median(idle) : 0;
  return { bytes, ms, window, cpu, peakRss, statusMs, idleStatusP50, steps };
}

/** `ROUNDS` alternating rounds of each, and one more scan polled by status. */
async function measure(home: string, workspace: string, bytes: number, baselineDir: string) {
  const runs: DiscoverRun[] = [];
  const baselines: ProbeResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.push(await discover(home, workspace, bytes, false));
    baselines.push(probe("baseline", baselineDir));
  }
  const polled = await discover(home, workspace, bytes, true);
  const peakRss = Math.max(polled.peakRss, ...runs.map((run) => run.peakRss));
  // Throughput ratio of a round: the baseline's time over discovery's (same bytes).
  const pairs = runs.map((run, i) => (baselines[i] as ProbeResult).ms / run.ms);
  return {
    oursMbps: median(runs.map((run) => (bytes / MiB / run.ms) * 1000)),
    plainMbps: median(baselines.map(mbPerSecond)),
    pairs,
    steps: (runs[0] as DiscoverRun).steps,
    polled,
    peakRss,
    plainRss: Math.max(...baselines.map((run) => run.rss_mb)),
  };
}

function rows(
  label: string,
  measured: Awaited<ReturnType<typeof measure>>,
  target = "target: ratio at least 0.7",
): BenchRow[] {
  const { oursMbps, plainMbps, pairs, steps, polled, peakRss, plainRss } = measured;
  const noise = schedulingNoise(Math.min(3000, Math.max(1000, polled.ms)));
  const range = `${Math.min(...pairs).toFixed(2)} to ${Math.max(...pairs).toFixed(2)}`;
  return [
    {
      name: `session.discover throughput, ${label} (${steps} steps, median of ${ROUNDS})`,
      figure: oursMbps,
      baseline: plainMbps,
      unit: "MB/s",
      baselineName: `read + JSON.parse every line of every file, one process (median of ${ROUNDS}, alternating)`,
      note: `${target}; the ${ROUNDS} rounds' own ratios: ${range}`,
    },
    {
      name: `session.discover throughput while status is polled every 5 ms, ${label}`,
      figure: (polled.bytes / MiB / polled.ms) * 1000,
      baseline: plainMbps,
      unit: "MB/s",
      baselineName: "the same baseline",
      note: "informational: the polling client competes for the same cores",
    },
    {
      name: `session.discover child peak RSS, ${label}`,
      figure: peakRss,
      baseline: plainRss,
      unit: "MB",
      baselineName: "the baseline process's peak RSS",
      note: "lower is better; target under 100 MB whatever the size",
    },
    {
      name: `status round trip p50 during discovery, ${label}`,
      figure: median(polled.statusMs),
      baseline: polled.idleStatusP50,
      unit: "ms",
      baselineName: "status p50 against the same child before the scan (idle)",
      note: `${polled.statusMs.length} samples`,
    },
    {
      name: `status round trip p99 during discovery, ${label}`,
      figure: percentile(polled.statusMs, 99),
      baseline: noise.p99,
      unit: "ms",
      baselineName: "p99 timer lateness of a pure 2 ms-slice CPU loop (machine scheduling noise)",
      note: "target p99 under 20 ms; a figure near the baseline means the loop is never held",
    },
  ];
}

/**
 * Flushes the freshly generated files to disk first, so that neither measurement competes with
 * the kernel writing them back (both then read from the page cache alike).
 */
function settle(): void {
  execFileSync("sync");
}

/** The store of `store` below (also bench/discover-ab.ts's), flushed to disk. */
export function buildStore(root: string, workspace: string, total: number) {
  const builder = new StoreBuilder(join(root, "home"), workspace, 77);
  const large = 5;
  const small = 1995;
  const smallBytes = Math.floor(total / 2 / small);
  const largeBytes = Math.floor(total / 2 / large);
  for (let i = 0; i < small; i += 1) builder.sized(`s${i}`, smallBytes, 700);
  for (let i = 0; i < large; i += 1) builder.sized(`big${i}`, largeBytes, 1500);
  settle();
  return { builder, written: smallBytes * small + largeBytes * large, smallBytes };
}

/**
 * 2,000 histories (1,995 small, five large) of `size` bytes in all, half of it in the large.
 * An informational store's throughput row carries no target.
 */
async function store(size: number, informational = false): Promise<BenchRow[]> {
  return withTempDir("mc-bench-discover-", async (dir) => {
    const root = realpathSync(dir);
    const workspace = join(root, "workspace");
    mkdirSync(workspace);
    const { builder, written, smallBytes } = buildStore(root, workspace, Math.round(size * scale));
    const measured = await measure(builder.home, workspace, written, builder.root);
    const label = `store of 2,000 histories, ${(written / MiB).toFixed(0)} MiB`;
    const note = informational
      ? `informational: ${(smallBytes / 1024).toFixed(0)} KiB histories, where the per-history checks weigh more`
      : undefined;
    return rows(label, measured, note);
  });
}

async function single(): Promise<BenchRow[]> {
  return withTempDir("mc-bench-discover1-", async (dir) => {
    const root = realpathSync(dir);
    const workspace = join(root, "workspace");
    mkdirSync(workspace);
    const builder = new StoreBuilder(join(root, "home"), workspace, 78);
    const bytes = Math.round(2048 * MiB * scale);
    builder.sized("huge", bytes, 1000);
    settle();
    const measured = await measure(builder.home, workspace, bytes, builder.root);
    return rows(`one history of ${(bytes / MiB).toFixed(0)} MiB`, measured);
  });
}

const bench: Bench = {
  title: "discover: session.discover (the issue's sizes; MC_BENCH_DISCOVER_SCALE scales them)",
  async run() {
    return [...(await store(1024 * MiB)), ...(await single()), ...(await store(256 * MiB, true))];
  },
};
export default bench;
