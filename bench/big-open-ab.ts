import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, truncateSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import type { Frame } from "../src/conformance/frame.js";
import { CHILD_BIN, nextId, type Sandbox, sandbox } from "../src/conformance/harness.js";
import { answerEvents } from "../test/fixtures/chat-completions-server.js";
import { startReady } from "../test/helpers/child.js";
import { TURN_CAPS } from "../test/turns/turn-harness.js";
import { peakRssMb, probe, processCpuMs } from "./bench-support.js";
import { writeBigHistory } from "./big-history.js";
import { median } from "./report.js";
import { soak } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * `node dist/bench/big-open-ab.js [mb=100] [rounds=7] [<bin/mc-agent.js> ...]`: the big-history
 * bench's warm 100 MB row (big-history.bench.ts: a fresh child's `session.open` and its first
 * `turn.start` to `turn_started`, against one bare read and JSON.parse of the same file) for
 * other builds beside this one, interleaved: each round runs every build once, in an order
 * turned by one each round, then the bare parse. Prints each build's median wall, CPU (all its
 * threads) and peak RSS, and its ratio to the bare parse's median. One history, written once, is
 * opened by all. Not part of `npm run bench`: it needs the other builds.
 */
const mb = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 7);
const bins = [...process.argv.slice(4).map((bin) => resolve(bin)), CHILD_BIN];

const isTurnStarted = (frame: Frame) =>
  (frame as { params?: { event?: { type?: string } } }).params?.event?.type === "turn_started";

interface Side {
  ms: number;
  cpu: number;
  rss: number;
}

async function openAndAdmit(box: Sandbox, id: string, bin: string): Promise<Side> {
  const child = await startReady(box, TURN_CAPS, {
    env: CHAT_COMPLETIONS.keyEnv,
    command: [process.execPath, bin, "stdio"],
  });
  try {
    const cpuBefore = processCpuMs(child.pid).all;
    const started = performance.now();
    await child.call("session.open", { id }, 600_000);
    const turnId = nextId("turn");
    const admitted = child.waitFor(isTurnStarted, 600_000);
    const done = child.waitFor((f) => f.id === turnId, 600_000);
    child.send({ id: turnId, method: "turn.start", params: { input: "Go on." } });
    await admitted;
    const ms = performance.now() - started;
    const cpu = processCpuMs(child.pid).all - cpuBefore;
    await done;
    return { ms, cpu, rss: peakRssMb(child.pid) };
  } finally {
    await child.close();
  }
}

const server = await startBenchServer();
const box = sandbox("mc-bench-big-ab-");
try {
  const streamer = await childStreamer(CHAT_COMPLETIONS, server, {
    contextWindow: 6000,
    permissions: "full_access",
    box,
  });
  try {
    await soak(server, streamer, box, { turns: 24, every: 24 });
  } finally {
    await streamer.close();
  }
  const folder = join(box.home, "sessions");
  const [name] = readdirSync(folder).filter((file) => file.endsWith(".jsonl"));
  if (!name) throw new Error("the template session wrote no history");
  const id = randomUUID();
  const path = join(folder, `${id}.jsonl`);
  const bytes = writeBigHistory(join(folder, name), path, id, box.workspace, mb * 1_000_000);
  execFileSync("sync");
  server.plan(() => ({ head: answerEvents({ text: ["Done."] }), rest: [] }));
  const sides = new Map<string, Side[]>(bins.map((bin) => [bin, []]));
  const plain: number[] = [];
  probe("baseline", path);
  for (const bin of bins) {
    await openAndAdmit(box, id, bin);
    truncateSync(path, bytes);
  }
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < bins.length; k += 1) {
      const bin = bins[(round + k) % bins.length] as string;
      sides.get(bin)?.push(await openAndAdmit(box, id, bin));
      truncateSync(path, bytes);
    }
    plain.push(probe("baseline", path).ms);
  }
  const bare = median(plain);
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
  process.stdout.write(
    `${(bytes / 1e6).toFixed(0)} MB, bare ${bare.toFixed(0)} ms; load ${load}\n`,
  );
  for (const [bin, runs] of sides) {
    const ms = median(runs.map((r) => r.ms));
    const cpu = median(runs.map((r) => r.cpu));
    const rss = Math.max(...runs.map((r) => r.rss));
    process.stdout.write(
      `${bin}: ${(ms / bare).toFixed(2)} (${ms.toFixed(0)} ms; ${runs.map((r) => r.ms.toFixed(0)).join("/")}), CPU ${cpu.toFixed(0)} ms, peak RSS ${rss.toFixed(1)} MB\n`,
    );
  }
} finally {
  await server.close();
  box.cleanup();
}
