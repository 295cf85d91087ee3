import { REFRESH_HOOK } from "./code-cache-hook.js";
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
 * schemas, the first requests) once, at REFRESH_AFTER_MS (later while `busy` says a request
 * runs or just ran) or at exit if that comes first: the
 * starts after it then deserialise that code instead of compiling it (docs/benchmarks.md,
 * "Start-up to a session ready"). V8 keys the data by its flags, which the next start loads it
 * under, before runStdio sets the heap's: they are set back for the while (heap-flags.ts), and
 * when they cannot be (a turn has set its own, or node was given one of them) nothing is made.
 * Does nothing where the code cache offered no refresh (its entry holds the start already, or
 * this Node has its own compile cache).
 */
export function refreshCodeCacheAfterStart(
  env: NodeJS.ProcessEnv = process.env,
  busy: () => boolean = () => false,
): void {
  const global = globalThis as { [REFRESH_HOOK]?: () => void };
  const refresh = global[REFRESH_HOOK];
  if (typeof refresh !== "function") return;
  delete global[REFRESH_HOOK];
  if (!flagsRestorable(env)) return;
  let done = false;
  let timer: NodeJS.Timeout;
  const run = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    process.off("exit", run);
    withLoadFlags(refresh);
  };
  const arm = (ms: number) => {
    timer = setTimeout(() => (busy() ? arm(RETRY_MS) : run()), ms);
    timer.unref();
  };
  arm(REFRESH_AFTER_MS);
  process.once("exit", run);
}
