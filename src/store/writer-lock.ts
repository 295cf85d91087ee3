import {
  closeSync,
  constants,
  fstatSync,
  ftruncate,
  openSync,
  unlinkSync,
  write,
  writeSync,
} from "node:fs";
import { lstat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { lockName } from "./layout.js";
import {
  judgeLock,
  LOCK_TIMING,
  type LockState,
  type LockTiming,
  lockContent,
  readLock,
} from "./lock-file.js";
import { errorCode } from "./safe-read.js";

/**
 * The writer lock of one session, held for a turn (turns.md section 8, docs/store.md "Locks"):
 * created exclusively, renewed in place every `renewMs` (same inode, so discovery's inventory
 * ignores renewals), removed at the end, and only if it is still ours.
 */

/** Another live process holds the lock (the wire's `session_locked`). */
export class SessionLocked extends Error {
  constructor() {
    super("another live process holds the session's writer lock");
    this.name = "SessionLocked";
  }
}

/** Locks this process holds, by path: our own pid in a lock is live only when listed here. */
const heldHere = new Set<string>();

/** Rounds of create-or-take-over before contention counts as `session_locked`. */
const ACQUIRE_ROUNDS = 8;
/** How long to wait while another process holds the takeover guard. */
const GUARD_WAIT_MS = 20;

const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_RDWR | constants.O_NOFOLLOW;
const writeAt = promisify(write);
const truncateTo = promisify(ftruncate);

export class WriterLock {
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private released = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly dev: bigint,
    private readonly ino: bigint,
    timing: LockTiming,
  ) {
    heldHere.add(path);
    this.timer = setInterval(() => {
      this.renewing = this.renewing.then(() => this.renew()).catch(() => {});
    }, timing.renewMs);
    this.timer.unref();
  }

  /**
   * Takes `root/<id>.lock` (root must exist). A live holder's lock is `SessionLocked`; a dead or
   * stale one is taken over. Other failures (EACCES, ENOSPC, ...) are thrown as they are.
   */
  static async acquire(root: string, id: string, timing = LOCK_TIMING): Promise<WriterLock> {
    const path = join(root, lockName(id));
    for (let round = 0; round < ACQUIRE_ROUNDS; round += 1) {
      const created = WriterLock.createExclusive(path, timing);
      if (created) return created;
      const seen = await readLock(path);
      if (seen.kind === "missing") continue;
      if (!takeable(seen, path, timing)) throw new SessionLocked();
      const taken = await WriterLock.takeOver(path, seen, timing);
      if (taken instanceof WriterLock) return taken;
      // Another taker holds the guard for a moment: let it finish, then look again.
      if (taken === "busy") await delay(GUARD_WAIT_MS);
    }
    throw new SessionLocked();
  }

  /**
   * Whether `acquire` would now refuse with `SessionLocked` (a live or foreign lock), judged
   * without writing anything: admission refuses such a turn before it touches the store.
   */
  static async heldElsewhere(root: string, id: string, timing = LOCK_TIMING): Promise<boolean> {
    const path = join(root, lockName(id));
    // A lock that cannot even be read is left to `acquire`, which reports it as it does.
    const seen = await readLock(path).catch((): LockState => ({ kind: "missing" }));
    return seen.kind !== "missing" && !takeable(seen, path, timing);
  }

  /** The exclusive create with our content, or null when a lock already exists. */
  private static createExclusive(path: string, timing: LockTiming): WriterLock | null {
    const fd = createWithContent(path);
    if (fd === null) return null;
    const stats = fstatSync(fd, { bigint: true });
    return new WriterLock(path, fd, stats.dev, stats.ino, timing);
  }

  /**
   * Replaces the stale lock `seen`, or says why not. Racing takers are serialised by an
   * exclusive guard file beside the lock (`.<id>.lock.takeover`, held for microseconds): only
   * its holder may remove a lock, and only after re-reading it under the guard and finding the
   * very inode it judged, still stale. Without the guard, a taker that judged the old lock
   * could remove the fresh lock another taker had just created in its place.
   */
  private static async takeOver(
    path: string,
    seen: LockState,
    timing: LockTiming,
  ): Promise<WriterLock | "retry" | "busy"> {
    const guardPath = join(dirname(path), `.${basename(path)}.takeover`);
    if (!createGuard(guardPath)) {
      await clearStaleGuard(guardPath, timing);
      return "busy";
    }
    try {
      const now = await readLock(path);
      const same = now.kind === "lock" && seen.kind === "lock" && now.ino === seen.ino;
      if (!same || !takeable(now, path, timing)) return "retry";
      await unlink(path).catch((error) => {
        if (errorCode(error) !== "ENOENT") throw error;
      });
      return WriterLock.createExclusive(path, timing) ?? "retry";
    } finally {
      guardsHeld.delete(guardPath);
      await unlink(guardPath).catch(() => {});
    }
  }

  /** Rewrites `renewed_at` in place: one positional write at offset 0, then the length. */
  async renew(): Promise<void> {
    if (this.released) return;
    const content = lockContent(process.pid, new Date());
    await writeAt(this.fd, content, 0, content.length, 0);
    await truncateTo(this.fd, content.length);
  }

  /** Whether `path` is still our inode (not taken over, removed or replaced by anyone). */
  async owned(): Promise<boolean> {
    try {
      const stats = await lstat(this.path, { bigint: true });
      return stats.dev === this.dev && stats.ino === this.ino;
    } catch {
      return false;
    }
  }

  /** Stops renewal and removes the lock if it is still ours. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.renewing;
    try {
      if (await this.owned()) await unlink(this.path).catch(() => {});
    } finally {
      heldHere.delete(this.path);
      try {
        closeSync(this.fd);
      } catch {}
    }
  }
}

function takeable(seen: LockState, path: string, timing: LockTiming, held = heldHere): boolean {
  return seen.kind === "lock" && judgeLock(seen, Date.now(), timing, held.has(path)) === "takeover";
}

/** Guards this process holds: our own pid in a guard is live only when listed here. */
const guardsHeld = new Set<string>();

function createGuard(guardPath: string): boolean {
  const fd = createWithContent(guardPath);
  if (fd === null) return false;
  closeSync(fd);
  guardsHeld.add(guardPath);
  return true;
}

/**
 * Creates `path` exclusively holding our `{pid, renewed_at}`: the descriptor, or null when the
 * name exists. Synchronous on purpose: create and write run back to back (microseconds), so a
 * writer killed between the two (leaving an empty lock, judged by its mtime) is unlikely.
 */
function createWithContent(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, CREATE_FLAGS, 0o600);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return null;
    throw error;
  }
  try {
    const content = lockContent(process.pid, new Date());
    writeSync(fd, content, 0, content.length, 0);
    return fd;
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {}
    throw error;
  }
}

/** A guard left by a taker that died (or stalled for `staleMs`) would block every takeover. */
async function clearStaleGuard(guardPath: string, timing: LockTiming): Promise<void> {
  const guard = await readLock(guardPath);
  if (takeable(guard, guardPath, timing, guardsHeld)) await unlink(guardPath).catch(() => {});
}
