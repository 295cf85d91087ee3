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
  schedulingNoise,
  withTempDir,
} from "./bench-support.js";
import { type Bench, type BenchRow, median, percentile } from "./report.js";

/**
 * session.discover over a store of 2,000 histories (a few large) and over one huge history,
 * through a real child following cursors, next to a same-run baseline that reads every file and
 * JSON.parses every line. At full scale the store is 1 GiB and the single history 2 GiB; the
 * default is a quarter of that so that `npm run bench` stays within a few minutes. Set
 * MC_BENCH_DISCOVER_SCALE=1 for the full sizes. Generated files live in a temp folder and are
 * deleted afterwards.
 */
const MiB = 1024 * 1024;
const scale = Number(process.env.MC_BENCH_DISCOVER_SCALE ?? "0.25");

interface DiscoverRun {
  bytes: number;
  ms: number;
  peakRss: number;
  statusMs: number[];
  idleStatusP50: number;
  steps: number;
}

/** Throughput rounds: discovery and the baseline alternate, and each keeps its best round. */
const ROUNDS = 2;

/**
 * Throughput is measured without other requests (a polling client competes for the same two
 * cores and its cost is the scheduler's, not the scan's), alternating with the baseline; the
 * status round trips come from a separate scan polled every 5 ms, whose throughput is shown too.
 */

/**
 * One scan through a fresh child following cursors to completion. With `pollStatus`, a client
 * sends `status` every 5 ms meanwhile and the round trips are recorded.
 */
async function discover(
  home: string,
  workspace: string,
  bytes: number,
  pollStatus: boolean,
): Promise<DiscoverRun> {
  const child = new TestChild({ cwd: workspace, home });
  await child.initialize(["session.discover"]);
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
  running = false;
  await poller;
  const peakRss = peakRssMb(child.pid);
  await child.close();
  return { bytes, ms, peakRss, statusMs, idleStatusP50: pollStatus ? median(idle) : 0, steps };
}

/** The fastest of `ROUNDS` alternating rounds of each, and one more scan polled by status. */
async function measure(home: string, workspace: string, bytes: number, baselineDir: string) {
  const runs: DiscoverRun[] = [];
  const baselines: ProbeResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.push(await discover(home, workspace, bytes, false));
    baselines.push(probe("baseline", baselineDir));
  }
  const polled = await discover(home, workspace, bytes, true);
  const fastest = <T extends { ms: number }>(all: T[]) =>
    all.reduce((best, one) => (one.ms < best.ms ? one : best));
  const peakRss = Math.max(polled.peakRss, ...runs.map((run) => run.peakRss));
  return { ours: fastest(runs), plain: fastest(baselines), polled, peakRss };
}

function rows(label: string, measured: Awaited<ReturnType<typeof measure>>): BenchRow[] {
  const { ours, plain, polled, peakRss } = measured;
  const noise = schedulingNoise(Math.min(3000, Math.max(1000, polled.ms)));
  const rate = (run: DiscoverRun) =>
    mbPerSecond({ bytes: run.bytes, records: 0, ms: run.ms, rss_mb: run.peakRss });
  return [
    {
      name: `session.discover throughput, ${label} (${ours.steps} steps, best of ${ROUNDS})`,
      figure: rate(ours),
      baseline: mbPerSecond(plain),
      unit: "MB/s",
      baselineName: `read + JSON.parse every line of every file, one process (best of ${ROUNDS}, alternating)`,
      note: "target: ratio at least 0.7",
    },
    {
      name: `session.discover throughput while status is polled every 5 ms, ${label}`,
      figure: rate(polled),
      baseline: mbPerSecond(plain),
      unit: "MB/s",
      baselineName: "the same baseline",
      note: "informational: the polling client competes for the same cores",
    },
    {
      name: `session.discover child peak RSS, ${label}`,
      figure: peakRss,
      baseline: plain.rss_mb,
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

async function store(): Promise<BenchRow[]> {
  return withTempDir("mc-bench-discover-", async (dir) => {
    const root = realpathSync(dir);
    const workspace = join(root, "workspace");
    mkdirSync(workspace);
    const builder = new StoreBuilder(join(root, "home"), workspace, 77);
    const total = Math.round(1024 * MiB * scale);
    const large = 5;
    const small = 1995;
    const smallBytes = Math.floor(total / 2 / small);
    const largeBytes = Math.floor(total / 2 / large);
    for (let i = 0; i < small; i += 1) builder.sized(`s${i}`, smallBytes, 700);
    for (let i = 0; i < large; i += 1) builder.sized(`big${i}`, largeBytes, 1500);
    const written = smallBytes * small + largeBytes * large;
    settle();
    const measured = await measure(builder.home, workspace, written, builder.root);
    return rows(`store of 2,000 histories, ${(written / MiB).toFixed(0)} MiB`, measured);
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
  title: "discover: session.discover (sizes scaled by MC_BENCH_DISCOVER_SCALE, default 0.25)",
  async run() {
    return [...(await store()), ...(await single())];
  },
};
export default bench;
