import { performance } from "node:perf_hooks";
import type { WireFormat } from "./turn-formats.js";
import type { BenchServer } from "./turn-server.js";
import type { Streamer } from "./turn-world.js";

/** The measurements of the turn benchmarks, each the same for the child and for the relay. */

/** `count` delta texts of about 16 characters, as a model streams a few tokens at a time. */
export function replyPieces(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `reply token ${i % 1000} `.padEnd(16, "."));
}

const msSince = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/**
 * Milliseconds from the server's first byte (a write that ends with the first text delta) to
 * the bench reading the streamer's first delta line, both on this process's clock. The rest of
 * the reply is held back until then, so nothing else is in flight.
 */
export async function firstDeltaMs(
  server: BenchServer,
  format: WireFormat,
  streamer: Streamer,
): Promise<number> {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.plan(() => ({ ...format.stream(replyPieces(8)), gate }));
  const firstByte = server.nextFirstByte();
  const firstDelta = streamer.proc
    .waitFor((f) => streamer.deltaOf(f) !== "", 30_000)
    .then(() => process.hrtime.bigint());
  const done = streamer.begin();
  try {
    const [from, to] = await Promise.all([firstByte, firstDelta]);
    return msSince(from, to);
  } finally {
    release();
    await done;
    streamer.forget();
  }
}

/** Deltas a second from the server's first byte to the last delta read, `count` deltas. */
export async function deltasPerSecond(
  server: BenchServer,
  format: WireFormat,
  streamer: Streamer,
  count: number,
): Promise<number> {
  const pieces = replyPieces(count);
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  // Built before the turn: building it when the request comes held this process's loop (and
  // so every status round trip in flight) for a few hundred milliseconds.
  const stream = format.stream(pieces);
  server.plan(() => stream);
  const firstByte = server.nextFirstByte();
  let seen = 0;
  const last = streamer.proc
    .waitFor((f) => {
      seen += streamer.deltaOf(f).length;
      return seen >= total;
    }, 120_000)
    .then(() => process.hrtime.bigint());
  const done = streamer.begin();
  const [from, to] = await Promise.all([firstByte, last]);
  await done;
  streamer.forget();
  return count / (msSince(from, to) / 1000);
}

/**
 * Sequential status round trips, one every `everyMs`, until `stop` resolves. The frames read
 * meanwhile are dropped as it goes: keeping a long turn's hundred thousand frames made this
 * process's own collector pause for up to a second, which is no status latency of the child.
 */
export async function pollStatus(
  streamer: Streamer,
  everyMs: number,
  stop: Promise<unknown>,
): Promise<number[]> {
  let running = true;
  void stop.finally(() => {
    running = false;
  });
  const samples: number[] = [];
  while (running) {
    const started = performance.now();
    const frame = await streamer.proc.request("status", {});
    samples.push(performance.now() - started);
    if (!frame.result) throw new Error(`status failed: ${frame.error?.code}`);
    streamer.forget();
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return samples;
}
