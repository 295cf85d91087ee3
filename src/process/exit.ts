/**
 * The child's exit, bounded by `cleanup_ms` whatever a libuv thread is stuck in (issue 17).
 *
 * `process.exit` does not return while a threadpool thread is blocked in the kernel: at exit,
 * libuv joins its threadpool threads (uv_library_shutdown), and a thread blocked in `open` on a
 * FIFO nobody writes, or in a read from a dead network mount, never comes back to be joined.
 * Measured on Node 20: `process.exit` and `process.reallyExit` both hang for good; only a signal
 * ends such a process. So the exit first waits, up to the deadline, for the pending threadpool
 * work it can see to end (fs requests and DNS lookups; zlib and crypto jobs are not listed, and
 * being CPU work they end by themselves): a file operation in flight takes microseconds, and
 * then the exit is the normal `exit 0`. Work still pending at the
 * deadline is stuck: everything the child could write has been written by then, and it kills
 * itself with SIGKILL, the one exit no stuck thread can hold (the status is then a signal, not 0:
 * a shutdown with a thread stuck in the kernel is not a clean one).
 */
import { writeSync } from "node:fs";

/** Resource types (`process.getActiveResourcesInfo`) whose work runs on the threadpool. */
const THREADPOOL_WORK =
  /^(FSReq|FileHandle|CloseReq|GetAddrInfoReqWrap|GetNameInfoReqWrap|Zlib)|Job$/;

const POLL_MS = 10;
/** The signal goes out this long before the deadline, so that the child is gone by then. */
const KILL_MARGIN_MS = 50;

/** Whether any threadpool work of this thread is still pending (it would hold the exit). */
function threadpoolBusy(): boolean {
  return process.getActiveResourcesInfo().some((name) => THREADPOOL_WORK.test(name));
}

/**
 * Exits with `code` (0 unless a stop signal's cleanup overran: stop-signals.ts) once no
 * threadpool work is pending; at `deadline` (epoch ms), SIGKILL instead.
 */
export function exitBy(deadline: number, code = 0): void {
  if (!threadpoolBusy()) return process.exit(code);
  if (Date.now() >= deadline - KILL_MARGIN_MS) {
    // Synchronous: nothing asynchronous gets out before the signal.
    try {
      writeSync(
        2,
        "mc-agent error: a file operation is stuck in the kernel; the child kills itself\n",
      );
    } catch {}
    process.kill(process.pid, "SIGKILL");
    return;
  }
  setTimeout(() => exitBy(deadline, code), POLL_MS);
}
