/**
 * A folder inside the workspace, reached at execution time one name at a time without following
 * a symbolic link, and held open while a write (or the AGENTS.md read) happens in it. Planning
 * resolved the path before an approval that may wait for minutes; this is what makes the write
 * land where that resolution said, whatever was swapped meanwhile (turns.md section 6: no
 * exception to the confinement).
 *
 * Node has no openat(2). On Linux each step is taken relative to the folder already held,
 * through its `/proc/self/fd/<fd>` link: the kernel resolves that link to the held inode itself,
 * whatever was renamed or replaced on the path since, so every lookup is an openat on the held
 * folder, and the step's own name is opened with O_NOFOLLOW | O_DIRECTORY (a symlink there is
 * ELOOP, a file ENOTDIR). Where /proc is missing, each step uses the absolute path and checks it:
 * lstat, open with O_NOFOLLOW, the descriptor must be the inode lstat saw, and realpath must be
 * the expected path.
 *
 * What remains: a held folder can still be *renamed* out of the workspace (or deleted) by another
 * process; a lookup through the held descriptor then follows it to where it went, although no
 * symlink is ever followed. `inPlace()` says whether the held folder is still at its place
 * inside the workspace; the write checks it synchronously right before its rename (the window
 * left is the time between that check and the rename(2) call, microseconds) and again after.
 */
import { constants, realpathSync, statSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, realpath } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "./tool.js";
import { codeOf } from "./workspace-path.js";

export interface HeldFolder {
  /** The folder's absolute path inside the workspace (where it was when reached). */
  readonly absolute: string;
  /** A path naming `name` in the held folder: the held inode itself where /proc allows. */
  at(name: string): string;
  /** A path naming the held folder itself (for opendir, fsync). */
  readonly path: string;
  /** Whether `path` and `at()` go through /proc/self/fd (the held inode) or the absolute path. */
  readonly viaProc: boolean;
  /** Whether the held folder is still at `absolute`, reached without a symlink (synchronous). */
  inPlace(): boolean;
  close(): Promise<void>;
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Holds `workspace/parts...`, each part a plain name (no symlink followed, `.`/`..` refused).
 * `create`: missing folders are made one level at a time (mkdir never follows a symlink at its
 * own name), with the process's default mode. Anything else on the way (a symlink, a file, a
 * folder swapped between the check and the open) is a ToolError naming only `shown`.
 */
export async function holdWorkspaceFolder(
  workspace: string,
  parts: string[],
  shown: string,
  create: boolean,
  /** false: walk the absolute path even where /proc works (how the tests reach that walk). */
  useProc = true,
): Promise<HeldFolder> {
  let held = await holdRoot(workspace, shown, useProc);
  try {
    for (const name of parts) {
      const next = await step(held, name, shown, create);
      await held.close();
      held = next;
    }
    return held;
  } catch (error) {
    await held.close();
    throw error;
  }
}

/** The workspace itself: canonical (realpath'd at start), the anchor of every walk. */
async function holdRoot(workspace: string, shown: string, useProc: boolean): Promise<HeldFolder> {
  const handle = await openDirectory(workspace, shown);
  const stats = await handle.stat({ bigint: true });
  // /proc/self/fd works when it names this very folder (it is missing off Linux, or unmounted).
  const proc = `/proc/self/fd/${handle.fd}`;
  const viaProc = useProc && sameInode(statIfAny(proc), stats);
  return heldFolder(handle, workspace, stats, viaProc);
}

async function step(
  parent: HeldFolder,
  name: string,
  shown: string,
  create: boolean,
): Promise<HeldFolder> {
  if (name === "" || name === "." || name === ".." || name.includes("/")) throw swapped(shown);
  const path = parent.at(name);
  let seen = await lstatIfAny(path, shown);
  if (seen === null && create) {
    await mkdir(path).catch((error) => {
      if (codeOf(error) !== "EEXIST") throw new ToolError(`could not create a folder for ${shown}`);
    });
    seen = await lstatIfAny(path, shown);
  }
  if (seen === null) throw swapped(shown);
  if (!seen.isDirectory()) throw swapped(shown);
  const absolute = join(parent.absolute, name);
  const handle = await openDirectory(path, shown);
  try {
    const stats = await handle.stat({ bigint: true });
    if (!sameInode(stats, seen)) throw swapped(shown);
    // Without /proc the lookup went through the absolute path again: it must still be symlink-free.
    if (!parent.viaProc && (await realpath(absolute).catch(() => null)) !== absolute)
      throw swapped(shown);
    return heldFolder(handle, absolute, stats, parent.viaProc);
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

type Identity = { dev: bigint; ino: bigint };

function heldFolder(
  handle: FileHandle,
  absolute: string,
  identity: Identity,
  viaProc: boolean,
): HeldFolder {
  const path = viaProc ? `/proc/self/fd/${handle.fd}` : absolute;
  let closed = false;
  return {
    absolute,
    path,
    viaProc,
    at: (name) => join(path, name),
    inPlace: () => {
      try {
        return (
          realpathSync.native(absolute) === absolute &&
          sameInode(statSync(absolute, { bigint: true }), identity)
        );
      } catch {
        return false;
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await handle.close().catch(() => {});
    },
  };
}

async function openDirectory(path: string, shown: string): Promise<FileHandle> {
  try {
    return await open(path, DIRECTORY_FLAGS);
  } catch (error) {
    const code = codeOf(error);
    if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") throw swapped(shown);
    throw new ToolError(`${shown}: a folder on its path cannot be opened`);
  }
}

async function lstatIfAny(path: string, shown: string) {
  try {
    return await lstat(path, { bigint: true });
  } catch (error) {
    if (codeOf(error) === "ENOENT") return null;
    throw new ToolError(`${shown}: a folder on its path cannot be accessed`);
  }
}

function statIfAny(path: string): Identity | null {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

function sameInode(a: Identity | null, b: Identity): boolean {
  return a !== null && a.dev === b.dev && a.ino === b.ino;
}

/** The path changed under the call (a folder swapped for a symlink, a file, or removed). */
function swapped(shown: string): ToolError {
  return new ToolError(`${shown}: a folder on its path changed; nothing was written`);
}
