import { randomBytes } from "node:crypto";
import { readdirSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import {
  archiveDir,
  classifyName,
  primaryName,
  STORE_ID_PATTERN,
  sessionsDir,
} from "../../store/layout.js";
import { errorCode } from "../../store/safe-open.js";
import { openExact } from "../history/open.js";
import type { Slicer } from "../slicer.js";
import { derivedNames } from "./archive.js";
import { reclaimAttachments } from "./reclaim-attachments.js";
import { lockSession, type StepHook, syncFolder } from "./session-lock.js";
import { checkpointsNamedIn } from "./tombstone-read.js";

/** What a deletion removes beside the history's files, given by the caller (other rooms own them). */
export interface DeletionParts {
  /** Removes these checkpoints (and the session's revert journal) of this workspace. */
  removeCheckpoints(sessionId: string, checkpoints: string[]): Promise<void>;
  /** The session's verdict file in the user's cache root, if there is a cache. */
  verdictFile(sessionId: string): string | null;
  /** Removes the session's search-index entry (sessions/search), if there is an index. */
  forgetSearch(sessionId: string): void;
  step: StepHook;
}

const TOMBSTONE = /^\.([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.[0-9a-f]{12}\.deleted$/;

/**
 * session.delete (docs/store.md, "Deleting a session"). Under the session's writer lock, the
 * history (active or archived) is validated (exact open's refusals), then renamed to a tombstone,
 * `.<id>.<12 hex>.deleted` in the same folder: a name no listing or open ever reads. That
 * rename is the commit point: before it the whole session is visible, after it none of it is.
 * Then go, in order: its derived histories (both folders), its checkpoints and revert journal
 * (named in the tombstone's `turn_end` records), its verdict file and search-index entry, and last
 * the tombstone. A kill
 * -9 after the commit leaves a tombstone that still names what remains; the next session.delete
 * of this home finishes it (`sweepTombstones`). The lock (a stale one taken over) goes at the end.
 */
export async function deleteSession(
  home: string,
  cwd: string,
  id: string,
  slicer: Slicer,
  commit: (effect: () => void) => void,
  parts: DeletionParts,
): Promise<void> {
  const lock = await lockSession(home, id);
  try {
    const folder = await locate(home, cwd, id, slicer);
    const tombstone = join(folder, `.${id}.${randomBytes(6).toString("hex")}.deleted`);
    parts.step("locked");
    commit(() => {
      try {
        renameSync(join(folder, primaryName(id)), tombstone);
      } catch {
        throw new ProtocolError("history_write_failed");
      }
    });
    syncFolder(folder);
    parts.step("committed");
    await finishDeletion(home, id, tombstone, parts);
  } finally {
    await lock.release();
  }
  await sweepTombstones(home, parts);
}

/** The folder of the session's history: active first, else the archive; validated whole. */
async function locate(home: string, cwd: string, id: string, slicer: Slicer): Promise<string> {
  try {
    await openExact(home, cwd, id, slicer);
    return sessionsDir(home);
  } catch (error) {
    if (!(error instanceof ProtocolError) || error.code !== "session_missing") throw error;
  }
  await openExact(home, cwd, id, slicer, { archived: true });
  return archiveDir(home);
}

/** Everything after the commit point, in an order a later sweep can resume at any step. */
async function finishDeletion(
  home: string,
  id: string,
  tombstone: string,
  parts: DeletionParts,
): Promise<void> {
  for (const folder of [sessionsDir(home), archiveDir(home)]) {
    for (const name of derivedNames(folder, id)) removeQuietly(join(folder, name));
    syncFolder(folder);
  }
  parts.step("derived");
  const checkpoints = await checkpointsNamedIn(tombstone);
  await parts.removeCheckpoints(id, checkpoints).catch(() => {});
  parts.step("checkpoints");
  const verdict = parts.verdictFile(id);
  if (verdict !== null) removeQuietly(verdict);
  try {
    parts.forgetSearch(id);
  } catch {
    // A cache entry left behind is harmless: a search checks each history's signature.
  }
  parts.step("verdict");
  await reclaimAttachments(home, tombstone);
  parts.step("attachments");
  removeQuietly(tombstone);
  syncFolder(join(tombstone, ".."));
  parts.step("tombstone");
}

/**
 * Finishes deletions a kill -9 interrupted after their commit: each tombstone whose session has
 * no history again (in either folder) and no live writer; and the lock a killed deletion left
 * of a session that has no history (taken over only when its holder is gone, as a turn takes a
 * stale lock: a live one may be a new session's first turn). Best effort, never fails the delete.
 */
export async function sweepTombstones(home: string, parts: DeletionParts): Promise<void> {
  for (const folder of [sessionsDir(home), archiveDir(home)]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const id = TOMBSTONE.exec(name)?.[1];
      if (id === undefined || !STORE_ID_PATTERN.test(id)) continue;
      await finishOne(home, id, join(folder, name), parts).catch(() => {});
    }
  }
  await sweepOrphanLocks(home);
}

async function sweepOrphanLocks(home: string): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(sessionsDir(home));
  } catch {
    return;
  }
  for (const name of names) {
    const entry = classifyName(name);
    if (entry.kind !== "lock" || hasHistory(home, entry.id)) continue;
    try {
      const lock = await lockSession(home, entry.id);
      await lock.release();
    } catch {
      // Live (or not ours to judge): left alone.
    }
  }
}

async function finishOne(home: string, id: string, tombstone: string, parts: DeletionParts) {
  const lock = await lockSession(home, id);
  try {
    // A new history with this ID since: its derived files are not the dead session's to take.
    if (hasHistory(home, id)) removeQuietly(tombstone);
    else await finishDeletion(home, id, tombstone, { ...parts, step: () => {} });
  } finally {
    await lock.release();
  }
}

function hasHistory(home: string, id: string): boolean {
  for (const folder of [sessionsDir(home), archiveDir(home)]) {
    try {
      if (readdirSync(folder).includes(primaryName(id))) return true;
    } catch {}
  }
  return false;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    // ENOENT: already gone (a sweep, or a kill -9 after it). Anything else stays for the sweep.
    if (errorCode(error) !== "ENOENT") return;
  }
}
