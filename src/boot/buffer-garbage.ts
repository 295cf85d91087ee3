import { getHeapStatistics } from "node:v8";

/**
 * How far V8's external memory may grow past what the last collection left before a turn
 * collects it itself. V8 starts a collection for external memory only 64 MiB past that (its
 * `kExternalAllocationSoftLimit`), which is more than this child's whole budget.
 */
export const BUFFER_GARBAGE_SLACK_BYTES = 8 * 1_048_576;
/** How often a running turn looks: external memory grows by megabytes a second at most. */
const CHECK_MS = 50;

/**
 * While a turn runs: a full collection (`collect`) whenever V8's external memory has grown
 * BUFFER_GARBAGE_SLACK_BYTES past the lowest it was since the last one.
 *
 * The memory outside V8's heap that a turn makes is mostly its network reads: each socket read
 * is an ArrayBuffer of up to 64 KiB, and undici's body chunks are views of them, queued until
 * the stream's reader takes them. When the child runs slowly (a busy machine) those chunks wait
 * through scavenges, move to the old generation and die there, where only a full collection
 * frees them; their tiny ArrayBuffer objects never bring the old generation to its limit, so
 * nothing collected them until V8's external limit. Measured on the back-pressure turn
 * (test/turns/turn-backpressure.test.ts) under the load of the store and session tests: up to
 * 36 MiB of dead read buffers and a peak RSS of 121-130 MiB in three runs of eight, against 91-96
 * MiB otherwise. A collection costs a few milliseconds at this heap's size; on a quiet machine
 * the reads die young and this never collects. Live buffers (a large tool output held) raise
 * the floor with them, so they never bring collections one after another.
 */
export function watchBufferGarbage(
  collect: () => void,
  slack = BUFFER_GARBAGE_SLACK_BYTES,
): () => void {
  let floor = externalBytes();
  const timer = setInterval(() => {
    const now = externalBytes();
    if (now < floor) floor = now;
    else if (now - floor > slack) {
      collect();
      floor = externalBytes();
    }
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** V8's external memory: ArrayBuffers' backing stores and what embedders report. */
function externalBytes(): number {
  return getHeapStatistics().external_memory;
}
