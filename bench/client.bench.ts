import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentClient } from "../src/client/index.js";
import { TestChild } from "../src/conformance/harness.js";
import type { ResultOf } from "../src/protocol/methods.js";
import { withTempDir } from "./bench-support.js";
import { type Bench, type BenchRow, median } from "./report.js";

/**
 * What the client SDK costs on top of raw frames: the same work through `AgentClient` and
 * through the bare test harness (JSON.stringify a line, match the answer by ID), same child,
 * same run. Lower is better for every row.
 */
const ROUND_TRIPS = 2000;
const STARTS = 10;
const HISTORIES = 300;

async function viaSdk(
  home: string,
  workspace: string,
): Promise<{ start: number[]; call: number; scan: number }> {
  const start: number[] = [];
  for (let i = 0; i < STARTS; i += 1) {
    const t0 = performance.now();
    const c = await AgentClient.spawn({
      cwd: workspace,
      env: { PATH: process.env.PATH, MC_HOME: home, HOME: home },
      capabilities: ["session.discover"],
    });
    start.push(performance.now() - t0);
    await c.close();
  }
  const client = await AgentClient.spawn({
    cwd: workspace,
    env: { PATH: process.env.PATH, MC_HOME: home, HOME: home },
    capabilities: ["session.discover"],
  });
  let t0 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i += 1) await client.call("status", {});
  const call = (performance.now() - t0) / ROUND_TRIPS;
  t0 = performance.now();
  const result = await client.discoverSessions();
  const scan = performance.now() - t0;
  if (result.sessions.length !== HISTORIES) throw new Error("SDK scan saw the wrong store");
  await client.close();
  return { start, call, scan };
}

async function viaHarness(
  home: string,
  workspace: string,
): Promise<{ start: number[]; call: number; scan: number }> {
  const start: number[] = [];
  for (let i = 0; i < STARTS; i += 1) {
    const t0 = performance.now();
    const c = new TestChild({ cwd: workspace, home });
    await c.initialize(["session.discover"]);
    start.push(performance.now() - t0);
    await c.close();
  }
  const child = new TestChild({ cwd: workspace, home });
  await child.initialize(["session.discover"]);
  let t0 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i += 1) await child.request("status", {});
  const call = (performance.now() - t0) / ROUND_TRIPS;
  t0 = performance.now();
  let cursor: string | null = null;
  let rows = 0;
  for (;;) {
    const page: ResultOf<"session.discover"> = await child.call(
      "session.discover",
      cursor ? { cursor } : {},
    );
    rows += page.sessions.length;
    if (page.complete) break;
    cursor = page.cursor;
  }
  const scan = performance.now() - t0;
  if (rows !== HISTORIES) throw new Error("raw scan saw the wrong store");
  await child.close();
  return { start, call, scan };
}

const bench: Bench = {
  title: "Client SDK overhead (AgentClient vs raw frames, real child)",
  async run(): Promise<BenchRow[]> {
    return withTempDir("mc-bench-client-", async (root) => {
      const home = join(root, "home");
      const workspace = join(root, "workspace");
      mkdirSync(join(home, "sessions"), { recursive: true });
      mkdirSync(workspace, { recursive: true });
      const cwd = realpathSync(workspace);
      for (let i = 0; i < HISTORIES; i += 1) {
        const rec = {
          type: "user_message",
          ts: "2026-11-29T10:00:00.000Z",
          cwd,
          text: `session ${i}`,
        };
        writeFileSync(join(home, "sessions", `s${i}.jsonl`), `${JSON.stringify(rec)}\n`);
      }
      const raw = await viaHarness(home, cwd);
      const sdk = await viaSdk(home, cwd);
      const note = "lower is better";
      return [
        {
          name: `spawn + initialize (median of ${STARTS})`,
          figure: median(sdk.start),
          baseline: median(raw.start),
          unit: "ms",
          baselineName: "raw harness",
          note,
        },
        {
          name: `status round-trip (mean of ${ROUND_TRIPS}, sequential)`,
          figure: sdk.call,
          baseline: raw.call,
          unit: "ms",
          baselineName: "raw harness",
          note,
        },
        {
          name: `discover ${HISTORIES} histories to validated completion`,
          figure: sdk.scan,
          baseline: raw.scan,
          unit: "ms",
          baselineName: "raw cursor loop",
          note,
        },
      ];
    });
  },
};

export default bench;
