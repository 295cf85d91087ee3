/**
 * The project instructions of a turn's system prompt (docs/turns.md section 5, "Project
 * instructions"): the global `MC_HOME/AGENTS.md`, then one file per folder from the git root
 * (when it is above the workspace) down to the workspace, in that order, so that a deeper file,
 * coming later, wins. In each folder `AGENTS.override.md` replaces `AGENTS.md` when it is a
 * non-empty regular file, as Codex documents. Together they are bounded by 32 KiB.
 */
import { lstat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { type InstructionFile, readAbove, readInWorkspace } from "./instruction-file.js";

/** All the files together are bounded by this many bytes (turns.md section 5). */
export const INSTRUCTIONS_BYTES = 32 * 1024;

/** The names a folder's instructions may have, in the order tried. */
export const INSTRUCTION_NAMES = ["AGENTS.override.md", "AGENTS.md"] as const;

interface Found extends InstructionFile {
  /** How the prompt names it: `MC_HOME/AGENTS.md`, `AGENTS.md`, `../AGENTS.md`. */
  label: string;
}

/**
 * The combined instructions, or null when there are none. The budget is given deepest first:
 * the workspace's own file keeps its whole 32 KiB as before nested files were read, and a
 * shallower file gets what the deeper ones left; a file cut (or left out) says so in a note.
 */
export async function readProjectInstructions(
  home: string,
  workspace: string,
): Promise<string | null> {
  const found = await findAll(home, workspace);
  if (found.length === 0) return null;
  let left = INSTRUCTIONS_BYTES;
  const texts = new Map<Found, string>();
  for (const file of [...found].reverse()) {
    texts.set(file, file.cut(left));
    left = Math.max(0, left - Math.min(file.bytes.length, left));
  }
  const parts = found.map((file) => `From ${file.label}:\n\n${texts.get(file)}`);
  return parts.join("\n\n");
}

async function findAll(home: string, workspace: string): Promise<Found[]> {
  const found: Found[] = [];
  const global = await readAbove(home);
  if (global) found.push({ ...global, label: `MC_HOME/${global.name}` });
  const root = await gitRootAbove(workspace);
  if (root !== null) {
    for (const folder of foldersBetween(root, workspace)) {
      const file = await readAbove(folder);
      const up = relative(workspace, folder).split(sep).join("/");
      if (file) found.push({ ...file, label: `${up}/${file.name}` });
    }
  }
  const own = await readInWorkspace(workspace, ".");
  if (own) found.push({ ...own, label: own.name });
  return found;
}

/** The nearest folder above the workspace holding `.git` (a folder or a worktree's file). */
async function gitRootAbove(workspace: string): Promise<string | null> {
  if (await exists(join(workspace, ".git"))) return null;
  for (let folder = dirname(workspace); ; folder = dirname(folder)) {
    if (await exists(join(folder, ".git"))) return folder;
    if (dirname(folder) === folder) return null;
  }
}

/** `root` and every folder below it down to the workspace's parent, shallowest first. */
function foldersBetween(root: string, workspace: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(workspace); ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (folder === root || dirname(folder) === folder) return folders;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
