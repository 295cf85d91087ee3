import { setFlagsFromString } from "node:v8";

/**
 * V8 settings for the backend child, which a frontend keeps alive per workspace: its resident
 * memory matters more than its last percent of speed (issue 13 bounds a 20 MB turn's peak RSS
 * at 100 MB). Each one is read by V8 while it runs, so setting it from inside takes effect (flags
 * read only when the heap is set up, such as `--max-semi-space-size`, would not); each was
 * measured on the back-pressure turn (test/turns/turn-backpressure.test.ts):
 *
 * - `--semi-space-growth-factor=1`: the young generation keeps the size it starts with instead
 *   of doubling to 2 × 16 MiB under a stream's garbage (about 16-25 MB of the peak);
 * - `--optimize-for-size`: V8's memory-saving heuristics (a smaller young generation, smaller
 *   heap growing steps, so garbage is collected sooner);
 * - `--liftoff-only`: undici's HTTP parser is WebAssembly; optimising it with TurboFan on the
 *   first model call took about 25 MB for a few tens of milliseconds (the first call's peak).
 *   Its baseline code parses fast enough: headers and chunk sizes are all it reads.
 *
 * Called once, first thing in the real child (not in tests' in-process servers).
 */
export const CHILD_HEAP_FLAGS = [
  "--semi-space-growth-factor=1",
  "--optimize-for-size",
  "--liftoff-only",
] as const;

export function tuneHeapForChild(): void {
  for (const flag of CHILD_HEAP_FLAGS) setFlagsFromString(flag);
}
