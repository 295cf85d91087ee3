import { median, percentile } from "./report.js";
import type { WireFormat } from "./turn-formats.js";
import { deltasPerSecond, firstDeltaMs } from "./turn-measure.js";
import type { BenchServer } from "./turn-server.js";
import type { Streamer } from "./turn-world.js";

/**
 * Two streamers measured side by side on one server and one wire format, in the same run:
 * first-delta latency in rounds whose samples alternate who goes first (so that machine noise
 * hits both alike), then delta throughput, one turn each per round.
 */
export interface PairCounts {
  warmup: number;
  rounds: number;
  latencySamples: number;
  throughputRounds: number;
  throughputDeltas: number;
}

export interface PairFigures {
  /** Per round: [first, second] p50 and p99, in ms. */
  p50: [number, number][];
  p99: [number, number][];
  /** Per round: [first, second] deltas/s. */
  rates: [number, number][];
}

export async function measurePair(
  server: BenchServer,
  format: WireFormat,
  pair: [Streamer, Streamer],
  counts: PairCounts,
): Promise<PairFigures> {
  const figures: PairFigures = { p50: [], p99: [], rates: [] };
  for (let i = 0; i < counts.warmup; i++)
    for (const s of pair) await firstDeltaMs(server, format, s);
  for (let round = 0; round < counts.rounds; round++) {
    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < counts.latencySamples; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order)
        samples[k as 0 | 1].push(await firstDeltaMs(server, format, pair[k as 0 | 1]));
    }
    figures.p50.push([median(samples[0]), median(samples[1])]);
    figures.p99.push([percentile(samples[0], 99), percentile(samples[1], 99)]);
  }
  for (const s of pair) await deltasPerSecond(server, format, s, counts.throughputDeltas);
  for (let round = 0; round < counts.throughputRounds; round++) {
    const a = await deltasPerSecond(server, format, pair[0], counts.throughputDeltas);
    const b = await deltasPerSecond(server, format, pair[1], counts.throughputDeltas);
    figures.rates.push([a, b]);
  }
  return figures;
}

/** The median over rounds of one side's figure. */
export const sideMedian = (pairs: [number, number][], k: 0 | 1) => median(pairs.map((p) => p[k]));

/** The lowest and highest of the rounds' first/second ratios. */
export const ratioSpread = (pairs: [number, number][]) => {
  const ratios = pairs.map(([a, b]) => a / b);
  return `${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}`;
};
