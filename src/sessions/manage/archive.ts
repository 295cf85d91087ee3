import { lstatSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import { archiveDir, classifyName, primaryName, sessionsDir } from "../../store/layout.js";
import { errorCode, inspectRoot, StoreUnavailable } from "../../store/safe-open.js";
import { openExact } from "../history/open.js";
import type { Slicer } from "../slicer.js";
import { lockSession, type StepHook, syncFolder } from "./session-lock.js";

export type Direction = "archive" | "unarchive";

/**
 * session.archive / session.unarchive (docs/store.md, "Archived sessions"): under the session's
 * writer lock, the history is validated where it is (exact open's refusals), then moved by one
 * rename(2) between `sessions/` and `sessions/archive/`: that rename is the commit point, so a
 * reader or a kill -9 sees the session wholly in one folder or the other. Its derived histories
 * (`<id>.<anything>.jsonl`, never listed) leave `sessions/` after it on archive and come back
 * before it on unarchive (in the same commit effect, so a cancel moves none of them): a live
 * session has them beside it whenever a kill -9 comes; an archived one may have some left in
 * `sessions/`, invisible, which its next unarchive or delete takes along.
 * `commit(effect)` runs the moves only when no cancel was observed (and detaches the session).
 */
export async function moveSession(
  home: string,
  cwd: string,
  id: string,
  direction: Direction,
  slicer: Slicer,
  commit: (effect: () => void) => void,
  step: StepHook,
): Promise<void> {
  const lock = await lockSession(home, id);
  try {
    const [from, to] =
      direction === "archive"
        ? [sessionsDir(home), archiveDir(home)]
        : [archiveDir(home), sessionsDir(home)];
    await openExact(home, cwd, id, slicer, { archived: direction === "unarchive" });
    if (direction === "archive") makeArchive(to);
    if (entryExists(to, primaryName(id))) throw new ProtocolError("session_exists");
    step("locked");
    if (direction === "archive") {
      commit(() => move(from, to, primaryName(id)));
      step("committed");
      moveDerived(from, to, id);
      step("derived");
    } else {
      // Back among the live sessions, the derived histories go first: a live session (one a
      // turn may write to) always has them beside it, whenever a kill -9 comes.
      commit(() => {
        moveDerived(from, to, id);
        step("derived");
        move(from, to, primaryName(id));
      });
      step("committed");
    }
    syncFolder(from);
    syncFolder(to);
  } finally {
    await lock.release();
  }
}

/** The archive folder, made 0700 when missing; it must be a real folder (not a symlink). */
function makeArchive(folder: string): void {
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw new ProtocolError("history_write_failed");
  }
  try {
    if (inspectRoot(folder) === "missing") throw new ProtocolError("history_write_failed");
  } catch (error) {
    if (error instanceof StoreUnavailable) throw new ProtocolError("session_invalid");
    throw error;
  }
}

function entryExists(folder: string, name: string): boolean {
  try {
    lstatSync(join(folder, name));
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw new ProtocolError("session_invalid");
  }
}

function move(from: string, to: string, name: string): void {
  try {
    renameSync(join(from, name), join(to, name));
  } catch {
    throw new ProtocolError("history_write_failed");
  }
}

/** The session's derived histories in `from`: each moved unless `to` holds that name already. */
function moveDerived(from: string, to: string, id: string): void {
  for (const name of derivedNames(from, id))
    if (!entryExists(to, name)) {
      try {
        renameSync(join(from, name), join(to, name));
      } catch {
        // Left behind, invisible: the next move or delete of the session takes it.
      }
    }
}

/** `<id>.<anything>.jsonl` in `folder` (none when the folder cannot be read). */
export function derivedNames(folder: string, id: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(`${id}.`) && classifyName(name).kind === "derived");
}
