/**
 * Nothing a tool does may hold a turn past its interrupt (issue 17). A tool's promise can stay
 * pending for good: a file operation stuck in the kernel (a FIFO nobody writes, a dead network
 * mount) occupies a libuv thread that no signal reaches, and a delivery to a client that stopped
 * reading waits for a `drain` that never comes. So once the turn's signal aborts, the engine
 * waits only a bounded grace for such a promise, then goes on without it: the call is recorded
 * `interrupted` and the turn ends within `cleanup_ms` of the interrupt. What the abandoned
 * promise does later is ignored (process/exit.ts makes sure a stuck thread does not keep the child
 * alive either).
 */
import { LIMITS } from "../protocol/constants.js";

/**
 * How long an aborted tool call may take to end by itself: enough for `shell` to TERM its group,
 * KILL it 1 s later and report (shell-process.ts), and leaving the turn's last records (one
 * fsync) and its result time before shutdown's drain bound (shutdown.ts, 150 ms before
 * `cleanup_ms`) on a loaded machine.
 */
export const TOOL_SETTLE_MS = LIMITS.cleanup_ms * 0.7;

export type Bounded<T> = { settled: true; value: T } | { settled: false };

/**
 * `work`'s outcome, or `{settled: false}` once `signal` has been aborted for `graceMs` without
 * `work` settling. A rejection of `work` is passed on as its rejection.
 */
export function settledOrAbandoned<T>(
  work: Promise<T>,
  signal: AbortSignal,
  graceMs: number = TOOL_SETTLE_MS,
): Promise<Bounded<T>> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const abandoned = new Promise<Bounded<T>>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve({ settled: false }), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const done = work.then((value): Bounded<T> => ({ settled: true, value }));
  // An abandoned call that fails later fails nobody: its rejection must not go unhandled.
  done.catch(() => {});
  return Promise.race([done, abandoned]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  });
}

/**
 * A delivery that stops holding its producer once `signal` aborts: the frame is still handed to
 * the writer in order (an interrupted turn's last events and its result follow it), but its
 * back-pressure no longer holds the turn, which has little left to say. A refusal before the
 * abort is still the producer's error.
 */
export function untilAborted(delivery: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    delivery.catch(() => {});
    return Promise.resolve();
  }
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([delivery, aborted]).finally(() =>
    signal.removeEventListener("abort", onAbort),
  );
}
