import { closeSync, constants, fsyncSync, openSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { sessionsDir } from "../../store/layout.js";
import { inspectRoot, StoreUnavailable } from "../../store/safe-open.js";
import { SessionLocked, WriterLock } from "../../store/writer-lock.js";

/**
 * What every session.manage mutation does first: the sessions folder checked, then the session's
 * writer lock taken (`sessions/<id>.lock`, the very lock a turn holds), so that a turn of another
 * process makes it `session_locked` and nothing is changed, and no turn can start on it while it
 * runs. A stale lock is taken over as a turn would, and removed when the mutation releases it.
 */
export async function lockSession(home: string, id: string): Promise<WriterLock> {
  const root = sessionsDir(home);
  try {
    if (inspectRoot(root) === "missing") throw new ProtocolError("session_missing");
  } catch (error) {
    if (error instanceof StoreUnavailable) throw new ProtocolError("session_invalid");
    throw error;
  }
  try {
    return await WriterLock.acquire(root, id);
  } catch (error) {
    if (error instanceof SessionLocked) throw new ProtocolError("session_locked");
    throw new ProtocolError("history_write_failed");
  }
}

/** A step of a mutation that a test build may end the process at (kill -9 tests); no-op else. */
export type StepHook = (step: string) => void;
export const NO_STEPS: StepHook = () => {};

/** Makes a folder's renames and unlinks durable (best effort: the moves are already done). */
export function syncFolder(folder: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    fsyncSync(fd);
  } catch {
    // A folder that cannot be synced was renamed into already; durability is best effort.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
