import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { watchBufferGarbage } from "./buffer-garbage.js";

/**
 * V8 settings for the backend child, which a frontend keeps alive per workspace: its resident
 * memory matters (issue 13 bounds a 20 MB turn's peak RSS at 100 MB). Each is read by V8 as it
 * runs, so setting it from inside takes effect (flags read only when the heap is set up, such as
 * `--max-semi-space-size`, would not). `runStdio` sets them once the child's modules have
 * loaded, so the young generation keeps the size it has then: set before, it held the load to
 * its first size, ten scavenges (a tenth of the start's CPU time) instead of five, and the
 * back-pressure turn's peak was the same either way (94-97 MiB). Measured on the back-pressure
 * turn (test/turns/turn-backpressure.test.ts): peak 135-140 MiB before, 93-97 MiB with all three.
 * The code-cache start (Node 20, code-cache.ts) allocates less while loading (three scavenges),
 * so there the young generation is still at its first size when they are set. That once cost
 * the pipelined `status` loop, whose answers outlived the scavenges; since they no longer do
 * (writer.ts), 100,000 of them run 80-83 scavenges with the flag and 46-52 without it, in the
 * same CPU time (docs/benchmarks.md, "The status loop's garbage").
 *
 * - `--semi-space-growth-factor=1`: the young generation stays at its first size instead of
 *   doubling up to 2 × 16 MiB under a stream's garbage;
 * - `--optimize-for-size` (only while a turn runs, see `turnMemoryMode`): V8's memory-saving
 *   mode; what matters here is that a full collection
 *   is due 2 MiB past the live heap instead of 8 MiB or up to four times it (the stream's frames
 *   outlive the small young generation, and their garbage piled up past 140 MiB without it);
 * - `--liftoff-only`: undici's HTTP parser is WebAssembly; optimising it with TurboFan on the
 *   first model call took about 25 MB for a few tens of milliseconds (the first call's peak).
 *   Its baseline code parses fast enough: headers and chunk sizes are all it reads (free).
 *
 * The cost: more frequent collections while a turn streams (`--heap-growing-percent` instead of
 * `--optimize-for-size` cost more and held less). Since streamed answers are read with
 * eventsource-parser instead of the SDKs' decoders (far less garbage per streamed byte), the
 * child keeps 0.7-0.9 times a bare relay's delta rate with it on (docs/benchmarks.md).
 */
const CHILD_HEAP_FLAGS = ["--semi-space-growth-factor=1", "--liftoff-only"] as const;

/** Set once tuneHeapForChild ran: the child's flags are in force. */
let childTuned = false;
/** Whole-history reads running (readingWhole): the young generation may grow while any does. */
let wholeReads = 0;
/** While the young generation may grow: the check that holds it at WHOLE_READ_YOUNG_BYTES. */
let youngCheck: NodeJS.Timeout | null = null;

export function tuneHeapForChild(): void {
  childTuned = true;
  for (const flag of CHILD_HEAP_FLAGS) setFlagsFromString(flag);
  if (youngCheck !== null) setFlagsFromString(GROWING);
}

/** V8's own growth factor (Node 20 to 24), which the child turns off. */
const GROWING = "--semi-space-growth-factor=2";
/** The young generation's size (both halves) at which a whole read stops its growth. */
export const WHOLE_READ_YOUNG_BYTES = 16 * 1_048_576;
/** How often a whole read looks at the young generation's size while it may grow. */
const YOUNG_CHECK_MS = 5;

/**
 * Runs `run`, a read that parses a whole history (session.open), with the young generation
 * free to grow as V8 grows it by default up to WHOLE_READ_YOUNG_BYTES, then holds it again. (A
 * turn's admission after the open parses none of it: admission-memo.ts.) Parsing a history
 * makes garbage at the rate of its bytes, nearly all of it dying young; held at its first size
 * (a megabyte or two), the young generation was collected that often: a 300 MB open took 829
 * scavenges (626 ms) instead of about 110 (110-190 ms) at 16 MiB, a 1 GB one over a second more
 * than a bare JSON.parse of the file (issue 44, "Opening a big history"). The cost: V8 does not
 * shrink it again while the child idles, so a child that opened a history of several MB keeps
 * up to 14 MB more (measured: 71 vs 63 MB); V8's own default is twice that. Nested and
 * concurrent reads share one growth; the last to end holds it. Outside the child
 * (tuneHeapForChild never ran) it only runs `run`.
 */
export async function readingWhole<T>(run: () => Promise<T>): Promise<T> {
  if (!childTuned) return run();
  wholeReads += 1;
  if (wholeReads === 1) growYoung();
  try {
    return await run();
  } finally {
    wholeReads -= 1;
    if (wholeReads === 0) holdYoung();
  }
}

function growYoung(): void {
  if (youngBytes() >= WHOLE_READ_YOUNG_BYTES) return;
  setFlagsFromString(GROWING);
  youngCheck = setInterval(() => {
    if (youngBytes() >= WHOLE_READ_YOUNG_BYTES) holdYoung();
  }, YOUNG_CHECK_MS);
  youngCheck.unref();
}

function holdYoung(): void {
  if (youngCheck === null) return;
  clearInterval(youngCheck);
  youngCheck = null;
  setFlagsFromString(CHILD_HEAP_FLAGS[0]);
}

/** The young generation's reserved size (V8's `new_space`, both halves). */
export function youngBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
}

/**
 * CHILD_HEAP_FLAGS as V8 11 (Node 20, the code cache's Node) has them by default, with the two
 * flags `--liftoff-only` turns off by implication: V8 keys a code cache by the flags that
 * differ from their defaults, and these put them back as they were when the bundle loaded.
 */
const LOAD_FLAGS = [
  "--semi-space-growth-factor=2",
  "--no-liftoff-only",
  "--wasm-tier-up",
  "--wasm-dynamic-tiering",
] as const;

/** Set once a turn's flags have been set: `--optimize-for-size` implies others, `--expose-gc`. */
let turnFlagsSet = false;

/**
 * Runs `run` with the V8 flags as they were before tuneHeapForChild (code-cache-refresh.ts),
 * then sets the child's again; does not run it once a turn has set flags of its own, which
 * cannot be put back exactly. Synchronous: no other code runs under the load's flags.
 */
export function withLoadFlags(run: () => void): boolean {
  if (turnFlagsSet) return false;
  for (const flag of LOAD_FLAGS) setFlagsFromString(flag);
  try {
    run();
  } finally {
    tuneHeapForChild();
  }
  return true;
}

/** Whether node was given none of the flags withLoadFlags sets (then their defaults held). */
export function flagsRestorable(env: NodeJS.ProcessEnv = process.env): boolean {
  const given = `${process.execArgv.join(" ")} ${env.NODE_OPTIONS ?? ""}`;
  return !/semi[-_]space|liftoff|wasm[-_]tier|wasm[-_]dynamic|optimize[-_]for[-_]size/.test(given);
}

/**
 * `--optimize-for-size` only while a turn streams: it is what keeps a stream's garbage from
 * piling up, and it costs CPU (about a fifth of a stream's throughput, and more for a discovery
 * scan's JSON.parse garbage, which it would take below its 0.7 target), so the child is in that
 * mode exactly while a turn runs (one at a time: turns hold the session worker), from its
 * `turn_started` on (src/server/handlers/turn-memory-mode.ts says why not before).
 */
export function turnMemoryMode(on: boolean): void {
  turnFlagsSet = true;
  setFlagsFromString(on ? "--optimize-for-size" : "--no-optimize-for-size");
  // And the network reads' dead buffers, which that mode does not reach (buffer-garbage.ts).
  stopBufferWatch?.();
  stopBufferWatch = on ? watchBufferGarbage(collectBetweenSteps) : null;
}

let stopBufferWatch: (() => void) | null = null;

/**
 * One full collection, run between a turn's steps (after a step's records are written, before
 * the next model call). A step leaves megabytes of large strings behind at once (the reply, its
 * message items and their frames, the record's JSON, the next request's body); large objects
 * are freed only by a full collection, and under a fast stream none came before the next step
 * piled more on. Collecting there, where they have just died and the child is waiting on a
 * tool or a model anyway, held the 50 MB memory turn's peak about 5 MB lower
 * (docs/benchmarks.md). It pauses the loop as long as any full collection (a few ms at these
 * heap sizes), once per step. Node exposes `gc` only to contexts created after `--expose-gc`.
 */
export function collectBetweenSteps(): void {
  collector ??= loadCollector();
  collector();
}

let collector: (() => void) | null = null;

function loadCollector(): () => void {
  turnFlagsSet = true;
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
    if (typeof gc === "function") return () => gc();
  } catch {
    // A runtime without the flag: collections stay V8's own.
  }
  return () => {};
}
