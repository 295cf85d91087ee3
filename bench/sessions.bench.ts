import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { TestChild } from "../src/conformance/harness.js";
import { StoreBuilder } from "../test/fixtures/store-builder.js";
import { mbPerSecond, type ProbeResult, probe, withTempDir } from "./bench-support.js";
import { type Bench, type BenchRow, median } from "./report.js";

/**
 * session.list over 256 histories of 32 KiB, and the history reader's throughput on one
 * 512 MiB history, each next to a same-run baseline that reads and JSON.parses every line with
 * no validation. The 512 MiB file is generated into a temp folder and deleted afterwards.
 */
const MiB = 1024 * 1024;

async function listing(): Promise<BenchRow[]> {
  return withTempDir("mc-bench-list-", async (dir) => {
    const root = realpathSync(dir);
    const home = join(root, "home");
    const workspace = join(root, "workspace");
    mkdirSync(workspace, { recursive: true });
    const store = new StoreBuilder(home, workspace, 99);
    for (let i = 0; i < 256; i += 1) store.sized(`s${i}`, 32 * 1024, 512);
    execFileSync("sync");
    const child = new TestChild({ cwd: workspace, home, env: { MC_AGENT_VERDICTS: "off" } });
    await child.initialize(["session.list"]);
    const times: number[] = [];
    for (let run = 0; run < 7; run += 1) {
      const started = performance.now();
      let page = await child.call("session.list", {});
      while (page.cursor) page = await child.call("session.list", { cursor: page.cursor });
      times.push(performance.now() - started);
    }
    await child.close();
    const baselines = Array.from({ length: 7 }, () => probe("baseline", store.root).ms);
    return [
      {
        name: "session.list, 256 histories of 32 KiB, all pages (median of 7)",
        figure: median(times),
        baseline: median(baselines),
        unit: "ms",
        baselineName: "read + JSON.parse every line of the 256 files, in process",
        note: "lower is better; the figure includes the protocol round trips",
      },
    ];
  });
}

const READER_ROUNDS = 5;

async function reader(): Promise<BenchRow[]> {
  return withTempDir("mc-bench-reader-", async (dir) => {
    const root = realpathSync(dir);
    const store = new StoreBuilder(join(root, "home"), root, 98);
    const path = store.sized("huge", 512 * MiB, 1024);
    // Flush the generated file first: neither measurement competes with its writeback.
    execFileSync("sync");
    // Alternating rounds, medians: one run of either varies by a third from run to run here.
    const ours: ProbeResult[] = [];
    const plain: ProbeResult[] = [];
    for (let round = 0; round < READER_ROUNDS; round += 1) {
      ours.push(probe("reader", path, root));
      plain.push(probe("baseline", path));
    }
    return [
      {
        name: `history reader on one 512 MiB history (8 KiB buffer, validation, cwd rule; median of ${READER_ROUNDS})`,
        figure: median(ours.map(mbPerSecond)),
        baseline: median(plain.map(mbPerSecond)),
        unit: "MB/s",
        baselineName: "1 MiB reads + JSON.parse every line, no validation (alternating)",
      },
      {
        name: "history reader peak RSS on the 512 MiB history",
        figure: Math.max(...ours.map((run) => run.rss_mb)),
        baseline: Math.max(...plain.map((run) => run.rss_mb)),
        unit: "MB",
        baselineName: "the same baseline's peak RSS",
        note: "lower is better; whole process",
      },
    ];
  });
}

const bench: Bench = {
  title: "sessions: session.list and the history reader",
  async run() {
    return [...(await listing()), ...(await reader())];
  },
};
export default bench;
