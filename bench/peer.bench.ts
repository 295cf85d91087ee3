import { loadavg } from "node:os";
import { type Sandbox, sandbox } from "../src/conformance/harness.js";
import { acpStreamer } from "./acp-streamer.js";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import { type Bench, type BenchRow, median } from "./report.js";
import { RESPONSES } from "./turn-formats.js";
import { measurePair, ratioSpread, sideMedian } from "./turn-pair.js";
import { codexStreamer } from "./turn-peer-codex.js";
import { type BenchServer, startBenchServer } from "./turn-server.js";
import { childStreamer, prepareBox } from "./turn-world.js";

/**
 * Our child against the peer a user would pick instead, Codex app-server (`@openai/codex`,
 * installed on demand by bench/peer-install, never a dependency): the same Responses stream
 * from the same loopback server, read through each one's own protocol over stdio, measured in
 * the same run with the turn benchmarks' measures. `figure` is ours, `baseline` Codex's.
 * MC_BENCH_TURN_SCALE scales the sample counts, as in the turn bench.
 */
const SCALE = Number(process.env.MC_BENCH_TURN_SCALE ?? 1);
const scaled = (n: number) => Math.max(2, Math.round(n * SCALE));
const COUNTS = {
  warmup: scaled(10),
  rounds: 3,
  // A p99 of 100 samples is the second slowest; of 300, the fourth: less of one stray pause.
  latencySamples: scaled(300),
  throughputRounds: 5,
  throughputDeltas: scaled(20_000),
};
// Twenty a row: a start varies by several milliseconds, and the warm row is within a few per
// cent of Codex's.
const STARTUPS = scaled(20);

const PEER = `Codex app-server ${CODEX_VERSION}`;

const ABOUT = `
The peer is Codex app-server (\`codex app-server\`, the JSON-RPC backend OpenAI's IDE and desktop
frontends spawn), from \`@openai/codex@${CODEX_VERSION}\` on npm. The bench installs it on demand
(bench/peer-install: \`npm install --prefix <cache> --no-save\`, the cache being
\`$MC_BENCH_PEERS\` or \`<tmpdir>/mc-agent-bench-peers/codex-${CODEX_VERSION}\`; it is never a
dependency) and runs the platform binary the package's \`bin/codex.js\` would run. When the
install or the binary fails, this section is skipped with the reason printed and its previous
figures stay. Codex runs with \`--strict-config\` on a temp CODEX_HOME whose config.toml defines
a custom provider (\`wire_api = "responses"\`, \`base_url\` the bench server's \`/v1\`, a dummy
\`env_key\`, \`request_max_retries = 0\`, \`stream_max_retries = 0\`) and selects it, with
\`approval_policy = "never"\`, \`sandbox_mode = "read-only"\`, and analytics, feedback,
OpenTelemetry, the update check, web search, apps, plugins, image generation and shell snapshots
off (no MCP servers). Both processes get the same clean environment (PATH and HOME, no
NODE_EXTRA_CA_CERTS). Ours reads the stream as the built-in \`openai\` provider, at its default
permissions: each of its turns takes its two checkpoints (git, docs/checkpoints.md), where Codex,
read-only, takes none. The one before the turn runs beside the first model call, and with this
server answering within a millisecond it overlaps the first delta; its git is started by a small
shell and niced, so it costs the stream little (bench/first-delta-ab compares ours with it, with
git forked from the child as before, and read-only).

Both read the same planned Responses stream (bench/turn-formats) from the same server, one turn
per reply on one session (ours: \`turn.start\`, its \`message_delta\` events; Codex:
\`turn/start\`, its \`item/agentMessage/delta\` notifications until \`turn/completed\`), with the
latency samples alternating who goes first. Latency is the server's first byte (the write that
ends with the first text delta) to the bench reading the first delta line; throughput is first
byte to last delta. Start-up is spawn to a session a client can start a turn on: ours spawn →
\`initialize\` → \`session.create\` result, Codex spawn → \`initialize\` → \`thread/start\` result,
on a warm home (used before, as a user's is) and on a fresh one (a first run); and, warm, in
the same rounds, \`mc-agent acp\` spawn → \`initialize\` → \`session/new\` answered (an
editor's start, on a home of its own set up as ours), each round's order rotated. Caveats: Codex sends its own request (its instructions and tools, about
40 KB, where ours sends a few hundred bytes); the server answers both alike and the turn timings start
at its first byte, so building and sending the request are outside every figure. Codex is a native (Rust) binary while ours is Node, so start-up
compares runtimes as much as designs. The model name is unknown to Codex (it warns and uses its
fallback model metadata). Ours persists the session to its store; Codex writes its rollout too
(threads are not ephemeral). On a loaded machine the p99 and start-up rows swing between runs
(read the rounds' ratios and slowest starts beside them); p50 and throughput hold their ratios.
Absolute figures of ours differ from the section below, measured at another time: compare
ratios within a section. Rerun with \`npm run bench -- peer\` (\`MC_BENCH_TURN_SCALE=0.3\` for a
quick look).
`;

async function peerRows(server: BenchServer, binary: string): Promise<BenchRow[]> {
  const child = await childStreamer(RESPONSES, server);
  const codex = await codexStreamer(binary, RESPONSES, server);
  let f: Awaited<ReturnType<typeof measurePair>>;
  try {
    f = await measurePair(server, RESPONSES, [child, codex], COUNTS);
  } finally {
    await child.close();
    await codex.close();
  }
  const label = `${RESPONSES.name} stream, ours vs ${PEER}`;
  const p50 = [sideMedian(f.p50, 0), sideMedian(f.p50, 1)] as const;
  const p99 = [sideMedian(f.p99, 0), sideMedian(f.p99, 1)] as const;
  const rates = [sideMedian(f.rates, 0), sideMedian(f.rates, 1)] as const;
  const latency = `median of ${COUNTS.rounds} rounds of ${COUNTS.latencySamples}`;
  return [
    {
      name: `${label}: server's first byte to first delta read, p50 (${latency})`,
      figure: p50[0],
      baseline: p50[1],
      unit: "ms",
      baselineName: `${PEER}, its first item/agentMessage/delta`,
      note: `lower is better; the rounds' ratios: ${ratioSpread(f.p50)}`,
    },
    {
      name: `${label}: server's first byte to first delta read, p99 (${latency})`,
      figure: p99[0],
      baseline: p99[1],
      unit: "ms",
      baselineName: `${PEER}, p99`,
      note: `lower is better; the rounds' ratios: ${ratioSpread(f.p99)}`,
    },
    {
      name: `${label}: delta throughput, ${COUNTS.throughputDeltas} deltas of 16 characters (median of ${COUNTS.throughputRounds})`,
      figure: rates[0],
      baseline: rates[1],
      unit: "deltas/s",
      baselineName: PEER,
      note: `higher is better; the rounds' ratios: ${ratioSpread(f.rates)}`,
    },
  ];
}

/**
 * Spawn to a session ready for a turn, each round's order rotated: on a warm home (one used
 * before, as a user's is; its first start is dropped) ours, `mc-agent acp` (to `session/new`
 * answered, on a home of its own set up as ours) and Codex; on a fresh one (a first run) ours
 * and Codex.
 */
async function startupRows(server: BenchServer, binary: string): Promise<BenchRow[]> {
  const homes = {
    ours: sandbox("mc-bench-peer-ours-"),
    acp: sandbox("mc-bench-peer-acp-"),
    codex: sandbox("mc-bench-peer-codex-"),
  };
  prepareBox(RESPONSES, server, homes.acp);
  const warm = { ours: [] as number[], acp: [] as number[], codex: [] as number[] };
  const fresh = { ours: [] as number[], codex: [] as number[] };
  const startOurs = async (box?: Sandbox) => {
    const s = await childStreamer(RESPONSES, server, box ? { box } : {});
    await s.close();
    return s.startupMs;
  };
  const startAcp = async () => {
    const s = await acpStreamer(RESPONSES, homes.acp);
    await s.close();
    return s.startupMs;
  };
  const startCodex = async (box?: Sandbox) => {
    const s = await codexStreamer(binary, RESPONSES, server, box);
    await s.close();
    return s.startupMs;
  };
  const warmSides = [
    async () => warm.ours.push(await startOurs(homes.ours)),
    async () => warm.acp.push(await startAcp()),
    async () => warm.codex.push(await startCodex(homes.codex)),
  ];
  try {
    await startOurs(homes.ours);
    await startAcp();
    await startCodex(homes.codex);
    for (let i = 0; i < STARTUPS; i++) {
      for (let k = 0; k < warmSides.length; k++)
        await (warmSides[(i + k) % warmSides.length] as () => Promise<number>)();
      const oursFirst = i % 2 === 0;
      if (oursFirst) fresh.ours.push(await startOurs());
      fresh.codex.push(await startCodex());
      if (!oursFirst) fresh.ours.push(await startOurs());
    }
  } finally {
    homes.ours.cleanup();
    homes.acp.cleanup();
    homes.codex.cleanup();
  }
  const load = `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;
  const slowest = (t: number[]) => Math.max(...t).toFixed(0);
  const row = (kind: string, t: { ours: number[]; codex: number[] }, target = ""): BenchRow => ({
    name: `start-up to a session ready for a turn, ${kind}: spawn → initialize → session.create result, ours (median of ${STARTUPS})`,
    figure: median(t.ours),
    baseline: median(t.codex),
    unit: "ms",
    baselineName: `${PEER}: spawn → initialize → thread/start result`,
    note: `lower is better${target}; slowest ours ${slowest(t.ours)} ms, Codex ${slowest(t.codex)} ms; ${load}`,
  });
  return [
    row("warm home (used before, as a user's is)", warm, "; target at most 0.7"),
    {
      name: `\`mc-agent acp\` start-up to a session ready for a prompt, warm home: spawn → initialize → session/new answered (median of ${STARTUPS}, same rounds)`,
      figure: median(warm.acp),
      baseline: median(warm.codex),
      unit: "ms",
      baselineName: `${PEER}: spawn → initialize → thread/start result`,
      note: `lower is better; target at most 1; slowest ours ${slowest(warm.acp)} ms; ${load}`,
    },
    row("fresh home (a first run)", fresh),
  ];
}

/** Why one Codex start (spawn to thread started) fails, if it does. */
async function startFails(server: BenchServer, binary: string): Promise<string | undefined> {
  try {
    await (await codexStreamer(binary, RESPONSES, server)).close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0] : String(error);
  }
}

const bench: Bench = {
  title: "Turns against the peer a user would pick instead: ours vs Codex app-server",
  about: ABOUT,
  async run() {
    if (process.env.MC_BENCH_NO_PEER === "1") {
      process.stderr.write("  skipped: MC_BENCH_NO_PEER=1\n");
      return [];
    }
    const install = await installCodex();
    if ("skipped" in install) {
      process.stderr.write(`  skipped: ${install.skipped}\n`);
      return [];
    }
    const server = await startBenchServer();
    try {
      const failed = await startFails(server, install.binary);
      if (failed) {
        process.stderr.write(`  skipped: ${PEER} does not start a thread here: ${failed}\n`);
        return [];
      }
      return [
        ...(await peerRows(server, install.binary)),
        ...(await startupRows(server, install.binary)),
      ];
    } finally {
      await server.close();
    }
  },
};

export default bench;
