/**
 * Reading the folders skills and commands live in (docs/skills.md): a bounded, sorted look at a
 * folder's entries, and a bounded read of one file, never blocking on a FIFO (opened only when
 * it is a regular file, regular-file.ts) and never following a path out of the workspace for
 * the workspace's own places.
 */
import { opendir, realpath, stat } from "node:fs/promises";
import { PLACE_ENTRIES } from "../../protocol/schemas/skills.js";
import { within } from "../sandbox/policy.js";
import { openIfRegular } from "../tools/regular-file.js";

/** A place's root: the folder looked in, and the workspace it must stay in (project places). */
export interface PlaceRoot {
  root: string;
  /** The canonical workspace, for a place of the workspace; null for the user's. */
  confinedTo: string | null;
}

/** The names of a place's entries: the first PLACE_ENTRIES the system returns, sorted. */
export async function placeEntries(root: string): Promise<string[]> {
  let folder: Awaited<ReturnType<typeof opendir>>;
  try {
    folder = await opendir(root);
  } catch {
    return [];
  }
  const names: string[] = [];
  try {
    for await (const entry of folder) {
      if (entry.name.startsWith(".")) continue;
      names.push(entry.name);
      if (names.length >= PLACE_ENTRIES) break;
    }
  } catch {
    // A folder that fails half way lists what it gave.
  }
  // `for await` closes the folder when it ends or breaks; a throw left it open.
  await folder.close().catch(() => {});
  return names.sort();
}

export type FileRead =
  | { kind: "missing" }
  | { kind: "problem"; reason: "not_regular" | "unreadable" | "outside_workspace" }
  | { kind: "bytes"; bytes: Buffer; whole: boolean; real: string };

/**
 * The file at `path`, read up to `bytes` and one byte more (so `whole` says whether the file is
 * within `bytes`), with its real path.
 */
export async function readBounded(
  path: string,
  bytes: number,
  confinedTo: string | null,
): Promise<FileRead> {
  let real: string;
  try {
    real = await realpath(path);
    if (!(await stat(real)).isFile()) return { kind: "problem", reason: "not_regular" };
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT"
      ? { kind: "missing" }
      : { kind: "problem", reason: "unreadable" };
  }
  if (confinedTo !== null && !within(real, confinedTo))
    return { kind: "problem", reason: "outside_workspace" };
  const handle = await openIfRegular(real, { noFollow: true });
  if (handle === null) return { kind: "problem", reason: "not_regular" };
  try {
    const buffer = Buffer.alloc(bytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { kind: "bytes", bytes: buffer.subarray(0, filled), whole: filled <= bytes, real };
  } catch {
    return { kind: "problem", reason: "unreadable" };
  } finally {
    await handle.close();
  }
}

/** The real path of a folder, or null when it is none (or outside the workspace it must be in). */
export async function realFolder(path: string, confinedTo: string | null): Promise<string | null> {
  try {
    const real = await realpath(path);
    if (!(await stat(real)).isDirectory()) return null;
    if (confinedTo !== null && !within(real, confinedTo)) return null;
    return real;
  } catch {
    return null;
  }
}
