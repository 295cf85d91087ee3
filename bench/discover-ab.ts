import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CHILD_BIN } from "../src/conformance/harness.js";
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
  };
}

const builds = [...others.map((bin) => contestant(bin, bin)), contestant("this build", CHILD_BIN)];
if (process.env.MC_BENCH_AB_PARSE === "1")
  builds.push(
    contestant("this build, MC_AGENT_RECORD_SCAN=parse", CHILD_BIN, {
      MC_AGENT_RECORD_SCAN: "parse",
    }),
  );

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
  const run = async (build: Contestant, poll: boolean): Promise<DiscoverRun> => {
    fresh();
    return discover(home, workspace, written, poll, { command: build.command, env: envOf(build) });
  };
  for (let round = 0; round < rounds; round += 1) {
    // Slot 0 is the baseline; the builds follow; the order turns by one each round.
    const slots = builds.length + 1;
    const times = new Map<Contestant, number>();
    let baselineMs = 0;
    for (let k = 0; k < slots; k += 1) {
      const slot = (k + round) % slots;
      if (slot === 0) {
        baselineMs = probe("baseline", builder.root).ms;
        continue;
      }
      const build = builds[slot - 1] as Contestant;
      times.set(build, (await run(build, false)).ms);
      const polled = await run(build, true);
      build.p99s.push(percentile(polled.statusMs, 99));
      build.samples.push(...polled.statusMs);
    }
    for (const [build, ms] of times) {
      build.ratios.push(baselineMs / ms);
      build.mbps.push(written / MiB / (ms / 1000));
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
  }
  const mode = WITH_VERDICTS ? "verdict cache on, removed before each child" : "verdict cache off";
  console.log(`${(written / MiB).toFixed(0)} MiB, 2,000 histories, ${mode}, ${rounds} rounds:`);
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
