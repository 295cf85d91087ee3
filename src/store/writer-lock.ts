import { constants } from "node:fs";
import { type FileHandle, link, lstat, open, rename, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { lockName } from "./layout.js";
import {
  graveName,
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
const ACQUIRE_ROUNDS = 4;

const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_RDWR | constants.O_NOFOLLOW;

export class WriterLock {
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private released = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
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
      const created = await WriterLock.createExclusive(path, timing);
      if (created) return created;
      const seen = await readLock(path);
      if (seen.kind === "missing") continue;
      if (!takeable(seen, path, timing)) throw new SessionLocked();
      await moveAway(root, path, seen, timing);
    }
    throw new SessionLocked();
  }

  /** The exclusive create with our content, or null when a lock already exists. */
  private static async createExclusive(
    path: string,
    timing: LockTiming,
  ): Promise<WriterLock | null> {
    let handle: FileHandle;
    try {
      handle = await open(path, CREATE_FLAGS, 0o600);
    } catch (error) {
      if (errorCode(error) === "EEXIST") return null;
      throw error;
    }
    try {
      const content = lockContent(process.pid, new Date());
      await handle.write(content, 0, content.length, 0);
      const stats = await handle.stat({ bigint: true });
      return new WriterLock(path, handle, stats.dev, stats.ino, timing);
    } catch (error) {
      await handle.close().catch(() => {});
      await unlink(path).catch(() => {});
      throw error;
    }
  }

  /** Rewrites `renewed_at` in place: one positional write at offset 0, then the length. */
  async renew(): Promise<void> {
    if (this.released) return;
    const content = lockContent(process.pid, new Date());
    await this.handle.write(content, 0, content.length, 0);
    await this.handle.truncate(content.length);
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
      await this.handle.close().catch(() => {});
    }
  }
}

function takeable(seen: LockState, path: string, timing: LockTiming): boolean {
  return (
    seen.kind === "lock" && judgeLock(seen, Date.now(), timing, heldHere.has(path)) === "takeover"
  );
}

/**
 * Moves the stale lock `seen` out of the way so that the next exclusive create can succeed.
 * Two takers may race: a rename moves whatever lock is there now, so the moved file is checked
 * to be the very inode judged stale, and still stale. If it is not (another taker's fresh
 * lock, or a renewal meanwhile), it is put back with link(2), which never replaces anything.
 */
async function moveAway(root: string, path: string, seen: LockState, timing: LockTiming) {
  if (seen.kind !== "lock") return;
  const grave = join(root, graveName(basename(path)));
  try {
    await rename(path, grave);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  const moved = await readLock(grave);
  const same = moved.kind === "lock" && moved.dev === seen.dev && moved.ino === seen.ino;
  if (!same || !takeable(moved, path, timing)) {
    await link(grave, path).catch(() => {});
  }
  await unlink(grave).catch(() => {});
}
