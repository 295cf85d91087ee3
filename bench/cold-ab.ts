import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CHILD_BIN } from "../src/conformance/harness.js";
import { StoreBuilder } from "../test/fixtures/store-builder.js";
import { withTempDir } from "./bench-support.js";
import { median } from "./report.js";
import { discoverMs, verdictCacheRoot } from "./verdicts.bench.js";

/**
 * Cold listings by other builds beside this one, interleaved (docs/benchmarks.md, "Cold reads at
 * 200 × 4 MiB"): `node dist/bench/cold-ab.js <bin/mc-agent.js> ... [-- rounds]`, each bin
 * another checkout's built launcher (7382bcf's, say), this build's always last. Per round and
 * build: a fresh child, initialized and loaded (a `status` answered), then one complete
 * `session.discover` with the verdict cache off, over the verdict bench's four stores: 200
 * histories of 4 MiB (16 KiB records), 2,000 of 256 KiB (2 KiB records), 5,000 of 16 KiB (1 KiB)
 * and 20,000 of 4 KiB (512 B). The builds' order turns by one each round, so none is always
 * first on a cold page cache or last on a warm one. Prints each build's median and its speed-up
 * over the first. With MC_BENCH_COLD_VERDICTS=1 the verdict cache stays on and its folder is
 * removed before each child: a user's first listing, which also writes every verdict. Not part
 * of `npm run bench`: it needs the other builds.
 */
const WITH_VERDICTS = process.env.MC_BENCH_COLD_VERDICTS === "1";
const SHAPES = [
  { count: 200, bytes: 4 * 1024 * 1024, record: 16 * 1024 },
  { count: 2000, bytes: 256 * 1024, record: 2 * 1024 },
  { count: 5000, bytes: 16 * 1024, record: 1024 },
  { count: 20_000, bytes: 4 * 1024, record: 512 },
];

const args = process.argv.slice(2);
const split = args.indexOf("--");
const rounds = split === -1 ? 5 : Number(args[split + 1]);
const others = split === -1 ? args : args.slice(0, split);
const bins = [...others, CHILD_BIN];

async function coldListingMs(bin: string, home: string, cwd: string, rows: number) {
  const cacheRoot = verdictCacheRoot(home);
  if (WITH_VERDICTS)
    for (const name of readdirSafe(cacheRoot))
      if (name.startsWith("sessions-")) rmSync(join(cacheRoot, name), { recursive: true });
  const env: Record<string, string> = WITH_VERDICTS ? {} : { MC_AGENT_VERDICTS: "off" };
  const listed = await discoverMs(home, cwd, env, 0, [process.execPath, bin, "stdio"]);
  if (listed.rows !== rows) throw new Error(`${bin} listed ${listed.rows} of ${rows}`);
  return listed.ms;
}

function readdirSafe(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

for (const shape of SHAPES) {
  await withTempDir("mc-bench-cold-ab-", async (dir) => {
    const root = realpathSync(dir);
    const home = join(root, "home");
    const cwd = join(root, "workspace");
    mkdirSync(cwd, { recursive: true });
    const store = new StoreBuilder(home, cwd, 24);
    for (let i = 0; i < shape.count; i++) store.sized(`h${i}`, shape.bytes, shape.record);
    execFileSync("sync");
    const times = bins.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++)
      for (let k = 0; k < bins.length; k++) {
        const j = (k + round) % bins.length;
        times[j]?.push(await coldListingMs(bins[j] as string, home, cwd, shape.count));
      }
    const first = median(times[0] ?? []);
    console.log(`${shape.count} histories of ${shape.bytes / 1024} KiB, median of ${rounds}:`);
    for (const [j, bin] of bins.entries()) {
      const ms = median(times[j] ?? []);
      const spread = (times[j] ?? []).map((t) => t.toFixed(0)).join("/");
      console.log(
        `  ${bin}: ${ms.toFixed(0)} ms (${spread}), ${(first / ms).toFixed(2)}x the first`,
      );
    }
  });
}
