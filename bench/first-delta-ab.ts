import { join } from "node:path";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import { median, percentile } from "./report.js";
import { RESPONSES } from "./turn-formats.js";
import { firstDeltaMs } from "./turn-measure.js";
import { codexStreamer } from "./turn-peer-codex.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer, type Streamer } from "./turn-world.js";

/**
 * `node dist/bench/first-delta-ab.js [samples] [name=root ...]`: where the first-delta tail of the peer bench
 * went (docs/benchmarks.md, "First-delta p99 against Codex"). The peer bench's latency sample
 * (bench/turn-measure firstDeltaMs: a new turn, the server's first byte to the first delta
 * read) on four readers in one interleaved run, each sample's order rotated:
 *
 * - ours as shipped (the checkpoint before the turn through the git spawner, niced);
 * - ours with `MC_AGENT_GIT_SPAWN=direct` (git forked from the child itself, as before);
 * - ours under `read_only` permissions (no checkpoint at all);
 * - Codex app-server (bench/turn-peer-codex), when it installs;
 * - each `name=root` given: ours as shipped from another built checkout at `root` (an A/B of
 *   two builds, e.g. `prev=/tmp/prev` for a worktree of the last commit, built).
 *
 * Not a *.bench.ts: it writes nothing into docs/benchmarks.md, it prints the percentiles.
 */
const samples = Number(process.argv[2] ?? 200);
const builds = process.argv.slice(3).map((arg) => {
  const at = arg.indexOf("=");
  if (at < 1) throw new Error(`a build is name=root, not ${arg}`);
  return { name: arg.slice(0, at), root: arg.slice(at + 1) };
});

const server = await startBenchServer();
const readers: { name: string; streamer: Streamer }[] = [
  { name: "ours", streamer: await childStreamer(RESPONSES, server) },
  {
    name: "ours, MC_AGENT_GIT_SPAWN=direct",
    streamer: await childStreamer(RESPONSES, server, { env: { MC_AGENT_GIT_SPAWN: "direct" } }),
  },
  {
    name: "ours, read_only (no checkpoint)",
    streamer: await childStreamer(RESPONSES, server, { permissions: "read_only" }),
  },
];
for (const { name, root } of builds)
  readers.push({
    name,
    streamer: await childStreamer(RESPONSES, server, {
      command: [process.execPath, join(root, "bin", "mc-agent.js"), "stdio"],
    }),
  });
const install = await installCodex();
if ("skipped" in install) process.stderr.write(`Codex left out: ${install.skipped}\n`);
else
  readers.push({
    name: `Codex app-server ${CODEX_VERSION}`,
    streamer: await codexStreamer(install.binary, RESPONSES, server),
  });

try {
  for (let i = 0; i < 10; i++)
    for (const { streamer } of readers) await firstDeltaMs(server, RESPONSES, streamer);
  const times: number[][] = readers.map(() => []);
  for (let i = 0; i < samples; i++)
    for (let k = 0; k < readers.length; k++) {
      const at = (i + k) % readers.length;
      times[at]?.push(
        await firstDeltaMs(server, RESPONSES, (readers[at] as { streamer: Streamer }).streamer),
      );
    }
  for (const [k, { name }] of readers.entries()) {
    const t = times[k] ?? [];
    const ms = (n: number) => `${n.toFixed(2)} ms`;
    process.stdout.write(
      `${name}: p50 ${ms(median(t))}, p90 ${ms(percentile(t, 90))}, p99 ${ms(percentile(t, 99))} (${t.length} samples)\n`,
    );
  }
} finally {
  for (const { streamer } of readers) await streamer.close();
  await server.close();
}
