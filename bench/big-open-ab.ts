import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { truncateSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { CHILD_BIN, sandbox } from "../src/conformance/harness.js";
import { answerEvents } from "../test/fixtures/chat-completions-server.js";
import { probe } from "./bench-support.js";
import { writeBigHistory } from "./big-history.js";
import { type OpenSide, openAndAdmit, templateHistory } from "./big-open.js";
import { median } from "./report.js";
import { startBenchServer } from "./turn-server.js";

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

const server = await startBenchServer();
const box = sandbox("mc-bench-big-ab-");
try {
  const template = await templateHistory(server, box);
  const id = randomUUID();
  const path = join(box.home, "sessions", `${id}.jsonl`);
  const bytes = writeBigHistory(template, path, id, box.workspace, mb * 1_000_000);
  execFileSync("sync");
  server.plan(() => ({ head: answerEvents({ text: ["Done."] }), rest: [] }));
  const sides = new Map<string, OpenSide[]>(bins.map((bin) => [bin, []]));
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
