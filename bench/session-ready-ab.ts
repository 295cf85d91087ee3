import { loadavg } from "node:os";
import { sandbox } from "../src/conformance/harness.js";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import { cpuMs } from "./proc-cpu.js";
import { median } from "./report.js";
import { RESPONSES } from "./turn-formats.js";
import { codexStreamer } from "./turn-peer-codex.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * `node dist/bench/session-ready-ab.js [starts] [side ...]`: the peer bench's warm-home start-up
 * row alone (bench/peer.bench.ts `startupRows`: spawn → initialize negotiating `turn` →
 * session.create result, against Codex app-server's spawn → initialize → thread/start), with
 * this build, the other sides given and Codex interleaved, each start's order rotated, each
 * side on a warm home of its own (its first two starts dropped: the first may write the code
 * cache). A side is `name=<folder holding bin/ and dist/>` (e.g. a copy of main's build) or
 * `name=.`, this build, either followed by `,VAR=value` for its environment. Prints each side's
 * median, quartiles and slowest, its median CPU time (the work apart from the wait for a
 * core), the median of its per-round ratios to Codex and the ratios of the medians. Not a *.bench.ts: it writes nothing into docs/benchmarks.md.
 * With `MC_BENCH_READY_TURN=1` each start then runs one turn (a short streamed reply from the
 * bench server) and the same is printed for spawn → that turn's result: what a frontend that
 * prompts at once waits for, which a session answered before the child loaded does not shorten.
 */
const starts = Number(process.argv[2] ?? 20);
const specs = process.argv.slice(3);

interface Side {
  name: string;
  start: () => Promise<{ ms: number; cpu: number; turnMs?: number }>;
  times: number[];
  cpus: number[];
  turnTimes: number[];
}

const withTurn = process.env.MC_BENCH_READY_TURN === "1";

/** Spawn → the first turn's result, when asked for (`MC_BENCH_READY_TURN=1`). */
async function firstTurnMs(s: { startupMs: number; begin: () => Promise<void> }) {
  if (!withTurn) return undefined;
  const began = performance.now();
  await s.begin();
  return s.startupMs + performance.now() - began;
}

const server = await startBenchServer();
server.plan(() => RESPONSES.stream(["Ready ", "for ", "you."]));
const homes: { cleanup(): void }[] = [];
const sides: Side[] = [];
const ours = (spec: string): Side => {
  const [head = "", ...vars] = spec.split(",");
  const [name = head, folder = "."] = head.split("=");
  const env = Object.fromEntries(
    vars.map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]),
  );
  const command =
    folder === "." ? undefined : [process.execPath, `${folder}/bin/mc-agent.js`, "stdio"];
  const box = sandbox("mc-bench-ready-");
  homes.push(box);
  return {
    name,
    times: [],
    cpus: [],
    turnTimes: [],
    start: async () => {
      const s = await childStreamer(RESPONSES, server, {
        box,
        env,
        ...(command ? { command } : {}),
      });
      const cpu = cpuMs(s.proc.pid);
      const turnMs = await firstTurnMs(s);
      await s.close();
      return { ms: s.startupMs, cpu, turnMs };
    },
  };
};
for (const spec of specs.length > 0 ? specs : ["ours=."]) sides.push(ours(spec));
const install = await installCodex();
if ("skipped" in install) process.stderr.write(`Codex left out: ${install.skipped}\n`);
else {
  const box = sandbox("mc-bench-ready-codex-");
  homes.push(box);
  sides.push({
    name: `Codex app-server ${CODEX_VERSION}`,
    times: [],
    cpus: [],
    turnTimes: [],
    start: async () => {
      const s = await codexStreamer(install.binary, RESPONSES, server, box);
      const cpu = cpuMs(s.proc.pid);
      const turnMs = await firstTurnMs(s);
      await s.close();
      return { ms: s.startupMs, cpu, turnMs };
    },
  });
}

try {
  for (const side of sides) for (let i = 0; i < 2; i++) await side.start();
  for (let i = 0; i < starts; i++)
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length] as Side;
      const { ms, cpu, turnMs } = await side.start();
      side.times.push(ms);
      side.cpus.push(cpu);
      if (turnMs !== undefined) side.turnTimes.push(turnMs);
    }
  const q = (t: number[], p: number) =>
    [...t].sort((a, b) => a - b)[Math.floor(p * (t.length - 1))];
  const last = sides[sides.length - 1] as Side;
  for (const { name, times, cpus } of sides) {
    const ratio = median(times.map((t, i) => t / (last.times[i] as number)));
    process.stdout.write(
      `${name}: median ${median(times).toFixed(1)} ms (q1 ${q(times, 0.25)?.toFixed(1)}, q3 ${q(times, 0.75)?.toFixed(1)}, slowest ${Math.max(...times).toFixed(1)}; per-round ratio to ${last.name}, median ${ratio.toFixed(3)}); CPU median ${median(cpus).toFixed(0)} ms; load average ${loadavg()[0]?.toFixed(1)}\n`,
    );
  }
  for (const { name, turnTimes } of withTurn ? sides : [])
    process.stdout.write(
      `${name}: spawn to the first turn's result, median ${median(turnTimes).toFixed(1)} ms (q1 ${q(turnTimes, 0.25)?.toFixed(1)}, q3 ${q(turnTimes, 0.75)?.toFixed(1)}); / ${last.name} ${(median(turnTimes) / median(last.turnTimes)).toFixed(3)}\n`,
    );
  for (const [k, { name }] of sides.entries())
    for (const other of sides.slice(k + 1))
      process.stdout.write(
        `${name} / ${other.name}: ${(median(sides[k]?.times ?? []) / median(other.times)).toFixed(3)}\n`,
      );
} finally {
  for (const home of homes) home.cleanup();
  await server.close();
}
