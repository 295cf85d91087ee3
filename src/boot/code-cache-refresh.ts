import { REFRESH_HOOK, type RefreshHook, StartReach } from "./code-cache-hook.js";
import { flagsRestorable, withLoadFlags } from "./heap-flags.js";

/**
 * How long after runStdio the code cache's entry is made again with the start's code in it
 * (code-cache.ts `offerStartedRefresh`): long enough for a frontend's first requests, short
 * enough to come before a user's first turn. A child that exits before makes it as it exits.
 */
const REFRESH_AFTER_MS = 1000;

/**
 * How often a refresh that found the child busy looks again. Making the data holds the event
 * loop for several milliseconds of V8 work that cannot be sliced: landed in the middle of a
 * listing or a turn, it is a pause in the `status` answers and the deltas a frontend waits for
 * (docs/benchmarks.md, "Discovery against older builds"). So it waits for a quiet moment.
 */
const RETRY_MS = 100;

/**
 * Makes the child's code cache entry hold what its start ran (the handlers, the settings'
 * schemas, the first requests, the sessions' code once one is attached), at REFRESH_AFTER_MS
 * (later while `busy` says a request runs or just ran) and at exit, each time only when the
 * start has gone further than the entry's maker (`reach`; code-cache.ts makes it only then):
 * the starts after it then deserialise that code instead of compiling it (docs/benchmarks.md,
 * "Start-up to a session ready"). V8 keys the data by its flags, which the next start loads it
 * under, before runStdio sets the heap's: they are set back for the while (heap-flags.ts), and
 * once they cannot be (a turn has set its own, or node was given one of them) nothing is made.
 * Not just before a turn's flags either: tried twice. The first time test/turns/turn-backpressure
 * .test.ts's memory bound failed in runs with it, a failure later traced to the network reads'
 * dead buffers on a busy machine, with or without it (buffer-garbage.ts); the second time, with
 * that fixed, a fresh child's 100 MB open and first turn measured the same with and without it
 * (docs/benchmarks.md, "Targets of issue 44"), so it stays out. Does nothing where
 * the code cache offered no refresh (its entry holds a session's start already or is final, or
 * this Node has its own compile cache).
 */
export function refreshCodeCacheAfterStart(
  env: NodeJS.ProcessEnv = process.env,
  busy: () => boolean = () => false,
  reach: () => StartReach = () => StartReach.served,
): void {
  const global = globalThis as { [REFRESH_HOOK]?: RefreshHook };
  const refresh = global[REFRESH_HOOK];
  if (typeof refresh !== "function") return;
  delete global[REFRESH_HOOK];
  if (!flagsRestorable(env)) return;
  const made = () => withLoadFlags(() => refresh(reach()));
  const arm = (ms: number) => {
    const timer = setTimeout(() => (busy() ? arm(RETRY_MS) : made()), ms);
    timer.unref();
  };
  arm(REFRESH_AFTER_MS);
  process.once("exit", made);
}
