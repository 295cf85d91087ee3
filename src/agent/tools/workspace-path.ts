/**
 * Workspace confinement for the file tools: every path the model gives is resolved inside the
 * canonical workspace, symlinks included, before anything is read or written. Refusals are
 * `ToolError`s whose messages name the path as the model gave it (or its workspace-relative
 * form) and never an absolute host path outside the workspace, nor where a symlink points.
 */
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "./tool.js";

export interface WorkspacePath {
  /** The real (symlink-free) absolute path, inside the workspace. */
  absolute: string;
  /** The same path relative to the workspace, `/`-separated; "." for the workspace itself. */
  relative: string;
  /** How messages name it: the model's own words when relative, else the relative form. */
  shown: string;
}

export interface WritablePath extends WorkspacePath {
  /** False for a file that does not exist yet (its folders may not exist either). */
  exists: boolean;
}

/** Folders no tool ever writes under, at any depth (compared case-insensitively). */
const PROTECTED = new Set([".git", ".mc"]);

/** Resolves a path that must exist (read_file, list_dir, search). */
export async function resolveExisting(workspace: string, given: string): Promise<WorkspacePath> {
  const { lexical, shown } = confineLexically(workspace, given);
  const real = await realpathOrToolError(lexical, shown);
  return confined(workspace, real, shown);
}

/**
 * Resolves the target of a write: an existing file (through symlinks that stay inside), or a
 * new one whose nearest existing folder is resolved and whose missing parts are plain names.
 * Refuses folders, `.git/` and `.mc/`.
 */
export async function resolveForWrite(workspace: string, given: string): Promise<WritablePath> {
  const { lexical, shown } = confineLexically(workspace, given);
  const existing = await realpathIfExists(lexical, shown);
  const target = existing
    ? { ...confined(workspace, existing, shown), exists: true }
    : { ...(await resolveNew(workspace, lexical, shown)), exists: false };
  refuseProtected(target);
  if (target.exists && (await lstat(target.absolute)).isDirectory())
    throw new ToolError(`${shown} is a directory`);
  return target;
}

/** The lexical join, refused at once when it leaves the workspace (`..`, an absolute path). */
function confineLexically(workspace: string, given: string): { lexical: string; shown: string } {
  if (given.includes("\0")) throw new ToolError("path contains a NUL character");
  if (given.trim() === "") throw new ToolError("path is empty");
  const lexical = resolve(workspace, given);
  const rel = relativeInside(workspace, lexical);
  if (rel === null) {
    throw new ToolError(
      isAbsolute(given)
        ? "that absolute path is outside the workspace"
        : `${given} is outside the workspace`,
    );
  }
  return { lexical, shown: isAbsolute(given) ? rel : given };
}

/** A new file: the deepest existing ancestor resolved, then the missing names appended. */
async function resolveNew(workspace: string, lexical: string, shown: string) {
  const missing = [basename(lexical)];
  let folder = dirname(lexical);
  for (;;) {
    const real = await realpathIfExists(folder, shown);
    if (real) {
      const base = confined(workspace, real, shown);
      if (!(await lstat(real)).isDirectory()) throw new ToolError(`${shown}: not a directory`);
      return confined(workspace, join(base.absolute, ...missing), shown);
    }
    missing.unshift(basename(folder));
    folder = dirname(folder);
  }
}

/** The real path, or null when nothing at all (not even a dangling symlink) is there. */
async function realpathIfExists(path: string, shown: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw fsToolError(error, shown);
  }
  try {
    await lstat(path);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return null;
    throw fsToolError(error, shown);
  }
  throw new ToolError(`${shown} goes through a symbolic link whose target does not exist`);
}

async function realpathOrToolError(path: string, shown: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    throw fsToolError(error, shown);
  }
}

function confined(workspace: string, real: string, shown: string): WorkspacePath {
  const rel = relativeInside(workspace, real);
  if (rel === null) throw new ToolError(`${shown} resolves outside the workspace`);
  return { absolute: real, relative: rel, shown };
}

function refuseProtected(target: WorkspacePath): void {
  const parts = target.relative.split("/");
  if (parts.some((part) => PROTECTED.has(part.toLowerCase())))
    throw new ToolError(`${target.shown}: writes under .git/ and .mc/ are refused`);
}

/** `path` relative to `workspace` with `/` separators, or null when it is not inside. */
function relativeInside(workspace: string, path: string): string | null {
  const rel = relative(workspace, path);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

/** A file-system error as a message for the model, naming only the model's path. */
export function fsToolError(error: unknown, shown: string): ToolError {
  const reason: Record<string, string> = {
    ENOENT: "no such file or directory",
    ENOTDIR: "not a directory",
    EACCES: "permission denied",
    EPERM: "permission denied",
    ELOOP: "too many levels of symbolic links",
    EISDIR: "is a directory",
    ENAMETOOLONG: "name too long",
  };
  return new ToolError(`${shown}: ${reason[codeOf(error)] ?? "cannot be accessed"}`);
}

export function codeOf(error: unknown): string {
  const code =
    typeof error === "object" && error !== null ? (error as { code?: unknown }).code : "";
  return typeof code === "string" ? code : "";
}
