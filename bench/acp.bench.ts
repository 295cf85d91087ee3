import { acpStreamer } from "./acp-streamer.js";
import type { Bench, BenchRow } from "./report.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { measurePair, ratioSpread, sideMedian } from "./turn-pair.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * Issue 18: what `mc-agent acp` adds to a model's stream against our own stdio protocol, the
 * same engine reached through `mc-agent stdio`, on the same loopback stream in the same run.
 * MC_BENCH_TURN_SCALE scales the sample counts.
 */
const SCALE = Number(process.env.MC_BENCH_TURN_SCALE ?? 1);
const scaled = (n: number) => Math.max(2, Math.round(n * SCALE));
const ROUNDS = 3;
const LATENCY_SAMPLES = scaled(100);
const THROUGHPUT_DELTAS = scaled(20_000);
const THROUGHPUT_ROUNDS = 3;

const bench: Bench = {
  title: "ACP agent: first chunk and throughput against the stdio protocol",
  about: `
\`mc-agent acp\` (docs/acp.md) and \`mc-agent stdio\` on one store, one model (Chat Completions,
loopback) and the same streams, each a process spoken to over real pipes by the same reader.
Latency is the server's first byte (the write ending with the first text delta; the rest held
back) to the first \`agent_message_chunk\` (ACP) or \`message_delta\` (stdio) read, samples
alternating who goes first. The ACP path is the stdio path's engine plus one in-memory frame hop
and the ACP SDK's JSON-RPC encoding, so the difference is what ACP adds. Both sides share the
machine with whatever else runs: under heavy load (other jobs keeping both cores busy) the ACP
side's few extra steps per event cost more than their CPU time; compare the columns of one run.`,
  async run(): Promise<BenchRow[]> {
    const server = await startBenchServer();
    const stdio = await childStreamer(CHAT_COMPLETIONS, server);
    const acp = await acpStreamer(CHAT_COMPLETIONS, stdio.box);
    try {
      const f = await measurePair(server, CHAT_COMPLETIONS, [acp, stdio], {
        warmup: scaled(10),
        rounds: ROUNDS,
        latencySamples: LATENCY_SAMPLES,
        throughputRounds: THROUGHPUT_ROUNDS,
        throughputDeltas: THROUGHPUT_DELTAS,
      });
      const p50: [number, number] = [sideMedian(f.p50, 0), sideMedian(f.p50, 1)];
      const p99: [number, number] = [sideMedian(f.p99, 0), sideMedian(f.p99, 1)];
      const rates: [number, number] = [sideMedian(f.rates, 0), sideMedian(f.rates, 1)];
      const added = p50[0] - p50[1];
      return [
        {
          name: `ACP: server's first byte to first agent_message_chunk read, p50 (median of ${ROUNDS} rounds of ${LATENCY_SAMPLES})`,
          figure: p50[0],
          baseline: p50[1],
          unit: "ms",
          baselineName: "mc-agent stdio, its first message_delta",
          note: `lower is better; added ${added.toFixed(2)} ms; target under 1 ms added (${added < 1 ? "met" : "missed"})`,
        },
        {
          name: `ACP: the same, p99 (median of ${ROUNDS} rounds of ${LATENCY_SAMPLES})`,
          figure: p99[0],
          baseline: p99[1],
          unit: "ms",
          baselineName: "mc-agent stdio, p99",
          note: `added ${(p99[0] - p99[1]).toFixed(2)} ms`,
        },
        {
          name: `ACP: delta throughput, ${THROUGHPUT_DELTAS} deltas of 16 characters (median of ${THROUGHPUT_ROUNDS})`,
          figure: rates[0],
          baseline: rates[1],
          unit: "deltas/s",
          baselineName: "mc-agent stdio",
          note: `the rounds' ratios: ${ratioSpread(f.rates)}`,
        },
      ];
    } finally {
      await acp.close();
      await stdio.close();
      await server.close();
    }
  },
};

export default bench;
