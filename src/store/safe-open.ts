import {
  accessSync,
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  type Stats,
} from "node:fs";
import { errorCode } from "./safe-read.js";

export { errorCode };

/**
 * Safe access to the sessions folder and its primaries. Nothing under the root is reached
 * through a symlink: the root itself is checked with lstat, and a primary is opened only when
 * lstat says it is a regular file, with O_NOFOLLOW, and when the opened descriptor is the very
 * inode lstat saw (so a swap between the two calls is caught).
 */

/** The root is unusable: a symlink, not a folder, or unreadable (not listable or not enterable). */
export class StoreUnavailable extends Error {
  constructor() {
    super("the sessions folder cannot be read safely");
  }
}

/**
 * `missing` when the sessions folder does not exist (an empty store); else its stats. The one
 * root check of every lister and reader: a folder the child may list but not enter (read without
 * search permission, e.g. mode 0644) or enter but not list is unreadable as a whole. Without
 * this, names could be listed and then every history would fail to open, which a lister would
 * count as invalid histories instead of an unavailable store.
 */
export function inspectRoot(root: string): Stats | "missing" {
  let stats: Stats;
  try {
    stats = lstatSync(root);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "missing";
    throw new StoreUnavailable();
  }
  if (!stats.isDirectory()) throw new StoreUnavailable();
  try {
    accessSync(root, constants.R_OK | constants.X_OK);
  } catch {
    throw new StoreUnavailable();
  }
  return stats;
}

type OpenProblem = "missing" | "unsafe" | "unreadable";

type OpenedPrimary =
  | { ok: true; fd: number; stats: BigIntStats }
  | { ok: false; problem: OpenProblem };

// O_NONBLOCK: should a FIFO be swapped in between lstat and open, open must not hang on it.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// A session's writer (positional writes, so no O_APPEND: it ignores the position on Linux).
const WRITE_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `root/name` for reading if and only if it is a regular file reached without symlinks.
 * `seen` is an lstat the caller already took (a directory scan does); the descriptor must be
 * that very inode. `writable`: open it for reading and writing (the session writer only).
 */
export function openPrimary(
  root: string,
  name: string,
  seen?: BigIntStats,
  writable = false,
): OpenedPrimary {
  const path = entryPath(root, name);
  let before: BigIntStats;
  try {
    before = seen ?? lstatSync(path, { bigint: true });
  } catch (error) {
    return { ok: false, problem: errorCode(error) === "ENOENT" ? "missing" : "unreadable" };
  }
  if (!before.isFile()) return { ok: false, problem: "unsafe" };
  let fd: number;
  try {
    fd = openSync(path, writable ? WRITE_FLAGS : OPEN_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { ok: false, problem: "missing" };
    // ELOOP: it became a symlink after lstat.
    return { ok: false, problem: code === "ELOOP" ? "unsafe" : "unreadable" };
  }
  const stats = fstatSync(fd, { bigint: true });
  if (!stats.isFile() || stats.dev !== before.dev || stats.ino !== before.ino) {
    closeSync(fd);
    return { ok: false, problem: "unsafe" };
  }
  return { ok: true, fd, stats };
}

export function closeQuietly(fd: number | null): void {
  if (fd === null) return;
  try {
    closeSync(fd);
  } catch {}
}

/** Whether anything (of any type) exists at `root/name`, without following a symlink. */
export function entryExists(root: string, name: string): boolean {
  try {
    // throwIfNoEntry: an absent entry is the common case (no lock), and building the ENOENT
    // exception with its stack costs more than the lstat itself.
    return lstatSync(entryPath(root, name), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * `root/name` for a folder entry's name (one component: an ID with its suffix, or a name the
 * folder listed). `root` is already normal (`sessionsDir`), so path.join's normalisation of
 * the whole string per call (two calls per history in a scan) buys nothing.
 */
function entryPath(root: string, name: string): string {
  return `${root}/${name}`;
}
