/**
 * What a checkpoint leaves out of the listed paths (docs/checkpoints.md, "What a checkpoint
 * records"), found by `lstat` (never opening a file: a FIFO would block).
 */
import { lstat } from "node:fs/promises";
import { onDisk } from "./raw-paths.js";

/** Whether a path is an ignore file: never left out, whatever it says (ignore-files.ts). */
export function isIgnoreFile(path: string): boolean {
  return path === ".gitignore" || path.endsWith("/.gitignore");
}

/** Files larger than this are left out of a checkpoint (and listed). */
export const FILE_BYTES = 8 * 1024 * 1024;

/**
 * Which listed paths a checkpoint leaves out: regular files over FILE_BYTES, entries that are
 * neither file, link nor folder (a FIFO, a socket, a device), and folders holding a nested
 * repository (listed `dir/`). Names an exclude file cannot express (a line
 * break in them) are removed from the index after the add instead.
 */
export async function leftOut(
  workspace: string,
  paths: string[],
): Promise<{ excluded: string[]; unexpressible: string[] }> {
  const excluded: string[] = [];
  const unexpressible: string[] = [];
  const check = async (path: string) => {
    if (path.endsWith("/")) {
      if (await exists(onDisk(workspace, `${path}.git`))) excluded.push(path);
      return;
    }
    const stat = await lstat(onDisk(workspace, path)).catch(() => null);
    // A FIFO, socket or device where a tracked file was (git lists it changed): git cannot
    // add it (its add fails, and the checkpoint with it), so it is left out, like a large
    // file; a revert to a checkpoint that has a file there replaces it (restore.ts renames).
    const special =
      stat !== null && !stat.isFile() && !stat.isSymbolicLink() && !stat.isDirectory();
    if (special || (stat?.isFile() && stat.size > FILE_BYTES)) {
      excluded.push(path);
      if (/[\n\r]/.test(path)) unexpressible.push(path);
    }
  };
  for (let at = 0; at < paths.length; at += 256)
    await Promise.all(paths.slice(at, at + 256).map(check));
  return { excluded, unexpressible };
}

async function exists(path: Buffer): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
