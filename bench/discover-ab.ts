import { mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { CHILD_BIN, TestChild } from "../src/conformance/harness.js";
import { probe, withTempDir } from "./bench-support.js";
import { buildStore, type DiscoverRun, discover } from "./discover.bench.js";
import { median, percentile } from "./report.js";
import { verdictCacheRoot } from "./verdicts.bench.js";

/**
 * Discovery's throughput and the status round trips during it, for other builds beside this
 * one, interleaved with the baseline (docs/benchmarks.md, "Discovery against older builds"):
 * `node dist/bench/discover-ab.js <bin/mc-agent.js> ... [-- rounds]`, each bin another
 * checkout's built launcher, this build's always last. The store is discover.bench's 2,000
 * histories (1,995 small, five large) of MC_BENCH_AB_MIB MiB (default 256). Each round runs, in
 * an order that turns by one each round: the baseline (read + JSON.parse every line, its own
 * process), and per build a fresh child's complete discovery unpolled (throughput) and another
 * polled by `status` every 5 ms (round trips). A build's ratio in a round is the baseline's
 * time over its own; the report gives the median and range of the rounds' ratios, the median
 * of the rounds' status p99 and the p99 of all rounds' samples together.
 *
 * MC_BENCH_AB_VERDICTS=1 keeps the verdict cache on, its folder removed before each child: a
 * fresh store's first listing, which also writes every verdict (a build without the cache
 * reads alike). MC_BENCH_AB_PARSE=1 adds this build with MC_AGENT_RECORD_SCAN=parse. Not part
 * of `npm run bench`: it needs the other builds.
 */
const MiB = 1024 * 1024;
const LOOP_HELD = join(dirname(fileURLToPath(import.meta.url)), "loop-held.js");
const WITH_VERDICTS = process.env.MC_BENCH_AB_VERDICTS === "1";
const size = Number(process.env.MC_BENCH_AB_MIB ?? "256") * MiB;

interface Contestant {
  name: string;
  command: string[];
  env: Record<string, string>;
  ratios: number[];
  mbps: number[];
  p99s: number[];
  samples: number[];
  /** Per round: the baseline's CPU time over the listing child's (all its threads). */
  cpuRatios: number[];
  /** Per round: the listing child's main-thread CPU ms, and its other threads'. */
  mainCpu: number[];
  otherCpu: number[];
  /** Per polled round: the longest loop hold in main-thread CPU ms, and its p99 over ticks. */
  heldMax: number[];
  heldP99: number[];
}

const args = process.argv.slice(2);
const split = args.indexOf("--");
const rounds = split === -1 ? 5 : Number(args[split + 1]);
const others = split === -1 ? args : args.slice(0, split);

function contestant(name: string, bin: string, env: Record<string, string> = {}): Contestant {
  return {
    name,
    command: [process.execPath, bin, "stdio"],
    env,
    ratios: [],
    mbps: [],
    p99s: [],
    samples: [],
    cpuRatios: [],
    mainCpu: [],
    otherCpu: [],
    heldMax: [],
    heldP99: [],
  };
}

const builds = [...others.map((bin) => contestant(bin, bin)), contestant("this build", CHILD_BIN)];
if (process.env.MC_BENCH_AB_PARSE === "1")
  builds.push(
    contestant("this build, MC_AGENT_RECORD_SCAN=parse", CHILD_BIN, {
      MC_AGENT_RECORD_SCAN: "parse",
    }),
  );

async function warmUp(
  build: Contestant,
  home: string,
  cwd: string,
  env: Record<string, string>,
): Promise<void> {
  const child = new TestChild({ cwd, home, env, command: build.command });
  await child.initialize(["session.discover"]);
  await child.call("status", {});
  await child.close();
}

await withTempDir("mc-bench-discover-ab-", async (dir) => {
  const root = realpathSync(dir);
  const workspace = join(root, "workspace");
  mkdirSync(workspace);
  const { builder, written } = buildStore(root, workspace, size);
  const home = builder.home;
  const cacheRoot = verdictCacheRoot(home);
  // Past the verdict cache's ctime margin, so that a first listing writes every verdict.
  if (WITH_VERDICTS) await sleep(2_200);
  const envOf = (build: Contestant) => ({
    ...(WITH_VERDICTS ? { MC_AGENT_CACHE_DIR: cacheRoot } : { MC_AGENT_VERDICTS: "off" }),
    ...build.env,
  });
  const fresh = () => WITH_VERDICTS && rmSync(cacheRoot, { recursive: true, force: true });
  const heldFile = join(root, "loop-held.json");
  const run = async (build: Contestant, poll: boolean): Promise<DiscoverRun> => {
    fresh();
    // The polled runs also record how long the child's loop was held (bench/loop-held.ts).
    const held: Record<string, string> = poll
      ? { NODE_OPTIONS: `--import=${LOOP_HELD}`, MC_BENCH_LOOP_HELD: heldFile }
      : {};
    const env = { ...envOf(build), ...held };
    return discover(home, workspace, written, poll, { command: build.command, env });
  };
  const loopHeld = (window: [number, number]): number[] => {
    try {
      const ticks = JSON.parse(readFileSync(heldFile, "utf8")) as [number, number][];
      rmSync(heldFile);
      return ticks.filter(([at]) => at >= window[0] && at <= window[1]).map(([, cpu]) => cpu);
    } catch {
      return [];
    }
  };
  // A first child of each build makes its code cache entry (src/boot/code-cache.ts), about
  // 100 ms of one start's loop: a cost of the build's first start, not of a listing.
  for (const build of builds) await warmUp(build, home, workspace, envOf(build));
  for (let round = 0; round < rounds; round += 1) {
    // Slot 0 is the baseline; the builds follow; the order turns by one each round.
    const slots = builds.length + 1;
    const times = new Map<Contestant, DiscoverRun>();
    let baseline = { ms: 0, cpu: 0 };
    for (let k = 0; k < slots; k += 1) {
      const slot = (k + round) % slots;
      if (slot === 0) {
        const measured = probe("baseline", builder.root);
        baseline = { ms: measured.ms, cpu: measured.cpu_ms };
        continue;
      }
      const build = builds[slot - 1] as Contestant;
      times.set(build, await run(build, false));
      const polled = await run(build, true);
      build.p99s.push(percentile(polled.statusMs, 99));
      build.samples.push(...polled.statusMs);
      const held = loopHeld(polled.window);
      if (held.length > 0) {
        build.heldMax.push(Math.max(...held));
        build.heldP99.push(percentile(held, 99));
      }
    }
    for (const [build, listed] of times) {
      build.ratios.push(baseline.ms / listed.ms);
      build.mbps.push(written / MiB / (listed.ms / 1000));
      build.cpuRatios.push(baseline.cpu / listed.cpu.all);
      build.mainCpu.push(listed.cpu.main);
      build.otherCpu.push(listed.cpu.all - listed.cpu.main);
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
  }
  const mode = WITH_VERDICTS ? "verdict cache on, removed before each child" : "verdict cache off";
  console.log(`${(written / MiB).toFixed(0)} MiB, 2,000 histories, ${mode}, ${rounds} rounds:`);
  const list = (values: number[], digits = 2) => values.map((v) => v.toFixed(digits)).join("/");
  for (const build of builds) {
    console.log(
      `  ${build.name}: CPU ratio ${median(build.cpuRatios).toFixed(2)} (${list(build.cpuRatios)}); ` +
        `listing CPU ms main ${median(build.mainCpu).toFixed(0)}, other threads ${median(build.otherCpu).toFixed(0)} (${list(build.otherCpu, 0)}); ` +
        `loop held (main-thread CPU ms a turn) p99 ${median(build.heldP99).toFixed(1)} (${list(build.heldP99, 1)}), ` +
        `max ${median(build.heldMax).toFixed(1)} (${list(build.heldMax, 1)})`,
    );
  }
  for (const build of builds) {
    const spread = build.ratios.map((r) => r.toFixed(2)).join("/");
    const p99s = build.p99s.map((p) => p.toFixed(1)).join("/");
    console.log(
      `  ${build.name}: ratio ${median(build.ratios).toFixed(2)} (${spread}), ` +
        `${median(build.mbps).toFixed(0)} MB/s; status p99 median ${median(build.p99s).toFixed(1)} ms ` +
        `(${p99s}), all ${build.samples.length} samples: p50 ${median(build.samples).toFixed(2)}, ` +
        `p99 ${percentile(build.samples, 99).toFixed(1)}, max ${Math.max(...build.samples).toFixed(1)} ms`,
    );
  }
});
