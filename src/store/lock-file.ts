import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { errorCode } from "./safe-read.js";

/**
 * Reading and judging a writer lock `sessions/<id>.lock` (docs/store.md, "Locks"): a regular
 * file holding `{"pid": n, "renewed_at": ISO}` on one line. The writer side is writer-lock.ts.
 */
export interface LockTiming {
  /** How often a holder rewrites `renewed_at` in place. */
  renewMs: number;
  /** A lock not renewed for longer than this is stale and may be taken over. */
  staleMs: number;
}

export const LOCK_TIMING: LockTiming = { renewMs: 10_000, staleMs: 60_000 };

/** Enough for any lock mc writes (about 60 bytes); a longer file is not one of ours. */
const LOCK_READ_BYTES = 4096;

export type LockState =
  | { kind: "missing" }
  /** A symlink, folder, FIFO or other non-regular entry: never read, never taken over. */
  | { kind: "foreign" }
  | {
      kind: "lock";
      dev: bigint;
      ino: bigint;
      /** The holder's pid, or null when the content is not a lock (yet): see `judgeLock`. */
      pid: number | null;
      /** `renewed_at` in epoch milliseconds, or null (unreadable content). */
      renewedAt: number | null;
      mtimeMs: number;
    };

export function lockContent(pid: number, now: Date): Buffer {
  return Buffer.from(`${JSON.stringify({ pid, renewed_at: now.toISOString() })}\n`);
}

/** The lock at `path` as it is now, read without following a symlink. */
export async function readLock(path: string): Promise<LockState> {
  let seen: Awaited<ReturnType<typeof lstat>>;
  try {
    seen = await lstat(path, { bigint: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "missing" };
    throw error;
  }
  if (!seen.isFile()) return { kind: "foreign" };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ELOOP") return { kind: "foreign" };
    throw error;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile() || stats.ino !== seen.ino || stats.dev !== seen.dev)
      return { kind: "foreign" };
    const buffer = Buffer.alloc(LOCK_READ_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, LOCK_READ_BYTES, 0);
    const { pid, renewedAt } = parseLock(buffer.subarray(0, bytesRead));
    return {
      kind: "lock",
      dev: stats.dev,
      ino: stats.ino,
      pid,
      renewedAt,
      mtimeMs: Number(stats.mtimeMs),
    };
  } finally {
    await handle.close().catch(() => {});
  }
}

function parseLock(bytes: Buffer): { pid: number | null; renewedAt: number | null } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { pid: null, renewedAt: null };
  }
  if (typeof value !== "object" || value === null) return { pid: null, renewedAt: null };
  const { pid, renewed_at } = value as Record<string, unknown>;
  // A pid of 0 or below would name a process group in kill(2): never a holder.
  const validPid = typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0;
  const time = typeof renewed_at === "string" ? Date.parse(renewed_at) : Number.NaN;
  if (!validPid || Number.isNaN(time)) return { pid: null, renewedAt: null };
  return { pid, renewedAt: time };
}

/**
 * `live`: a writer may still be using it (`session_locked`). `takeover`: its holder is dead or
 * has not renewed for `staleMs`.
 * - Content that is not a lock is judged by the file's mtime alone, with the renewal period
 *   as its grace: a live writer writes its content right after its exclusive create (the same
 *   few microseconds), so such a file older than that is a writer killed in between, or
 *   someone else's file.
 * - Our own pid: live only when this process holds that very lock (`heldHere`); otherwise a
 *   dead predecessor's pid was reused by us (common in containers, where pids restart low).
 * - Another pid: dead when `kill(pid, 0)` fails with ESRCH (pids mean something only on one
 *   host: MC_HOME is written by the processes of one host).
 */
export function judgeLock(
  lock: Extract<LockState, { kind: "lock" }>,
  now: number,
  timing: LockTiming,
  heldHere: boolean,
): "live" | "takeover" {
  if (lock.pid === null || lock.renewedAt === null)
    return now - lock.mtimeMs > timing.renewMs ? "takeover" : "live";
  if (now - lock.renewedAt > timing.staleMs) return "takeover";
  if (lock.pid === process.pid) return heldHere ? "live" : "takeover";
  return processAlive(lock.pid) ? "live" : "takeover";
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a live process of another user.
    return errorCode(error) !== "ESRCH";
  }
}
