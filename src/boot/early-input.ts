import { readSync } from "node:fs";

/**
 * A starter's first frame (src/boot/starter.ts) or line (src/acp/starter.ts), read from fd 0
 * with `fs.readSync` instead of through `process.stdin`: making that stream (a pipe or socket
 * handle, Node's stream and net modules) and `process.stdout` costs about 2.5 ms before the
 * first byte can be read on a quiet machine, a tenth of a bare Node start, and more on a busy
 * one; the loaded child or agent makes them after the answer instead (docs/benchmarks.md,
 * "Targets of issue 44").
 *
 * Synchronous on purpose. A read left waiting on libuv's threadpool could not be taken back: it
 * would hold the process's exit for good (libuv joins its threads at exit, src/process/exit.ts)
 * whenever the frontend stopped the child by a signal before writing again. The starter needs
 * a first frame to do anything, and a frontend's first frame is written as it spawns: it is
 * waiting in the pipe by the time Node has started. One written later is waited for here, and
 * the child loads once it has come (before, it loaded meanwhile); a stop signal meanwhile ends
 * the process as it would any starter (no handler is installed yet).
 */

/** How reading the first frame or line ended. */
export type EarlyRead =
  /** `take` has what it needs (a whole first frame or line, or more). */
  | "enough"
  /** stdin ended: everything before the end went to `take`. */
  | "end"
  /**
   * fd 0 cannot be read this way (a non-blocking descriptor with nothing waiting, a read
   * interrupted, a closed or odd one): what was read went to `take`, the rest is the stream's.
   */
  | "unreadable";

/** As much as a stream's chunk: a frontend's first frames are a few kilobytes. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads fd 0 chunk by chunk, each handed to `take`, until `take` says it has enough, or stdin
 * ends or cannot be read this way.
 */
export function readEarly(take: (chunk: Buffer) => boolean): EarlyRead {
  for (;;) {
    // A fresh buffer each read: `take` may keep it.
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytes: number;
    try {
      bytes = readSync(0, buffer, 0, CHUNK_BYTES, null);
    } catch {
      return "unreadable";
    }
    if (bytes === 0) return "end";
    if (take(buffer.subarray(0, bytes))) return "enough";
  }
}
