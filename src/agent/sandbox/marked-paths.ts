/**
 * The probe's own places without their paths (the probe memo's key, probe-memo-key.ts;
 * docs/tools.md, "The probe memo"): the workspace, and MC_HOME, which the run hides. bubblewrap's
 * run touches such a folder in three ways: it mounts on it (a bind of the workspace, a tmpfs
 * over MC_HOME; the outcome depends on the mount the folder is on, and for a recursive bind on
 * every mount below it), it makes or finds its mount point in the new root (which depends on
 * which of the run's own mounts hold it, and in what order the mounts come, by depth), and for
 * the workspace it changes into it (which the child's own start in it has already done). So two
 * such folders on the same mount, with no mount at or below either, held by the same mounts of
 * the run, give the same outcome when the runs are the same once each path is replaced by a mark;
 * the key names those facts instead of the path, and the path only where they cannot be read.
 */
import { closeSync, constants, openSync } from "node:fs";
import { readRegularFileSync } from "../../store/safe-read.js";
import { within } from "./policy.js";

/** What stands for the workspace in the key's runs: no path holds a NUL byte. */
export const WORKSPACE_MARK = "\u0000workspace";
/** What stands for MC_HOME (its canonical path). */
export const HOME_MARK = "\u0000home";

/** How much of /proc/self/mountinfo is read: past this, the key names the paths. */
export const MOUNTINFO_BYTES = 256 * 1024;
/** A longer path is named as it is (bwrap's paths in the new root grow by a prefix). */
export const MARKED_PATH_BYTES = 1024;

/** A place to mark: its canonical path, or null when it has none (no MC_HOME folder). */
export interface Place {
  mark: string;
  path: string | null;
}

/** A marked place's facts, in the key. */
export interface MarkedPlace {
  mark: string;
  /** The /proc/self/mountinfo line of the mount it is on, as it is. */
  mount: string;
  /**
   * The runs' paths that hold it (`/`, a `--tmpfs /tmp`...), in their order: its mount point
   * is found or made in the new root under the last of them, which the mark alone hides.
   */
  under: string[];
}

export interface RunPaths {
  args: string[];
  cwd: string;
}

/**
 * `runs` with each place the runs name replaced by its mark wherever its mount can be told
 * (Linux, a path of at most MARKED_PATH_BYTES, no mount at or below it, the tables readable),
 * and those places' facts; a place that cannot be told keeps its path. The longer path is
 * marked first: a workspace inside MC_HOME is the workspace's mark.
 */
export function markPlaces(
  runs: readonly RunPaths[],
  places: readonly Place[],
): { runs: RunPaths[]; marked: MarkedPlace[] } {
  const literal = runs.flatMap((run) => [...run.args, run.cwd]);
  const named = places.filter(
    (place): place is { mark: string; path: string } =>
      place.path !== null && literal.some((arg) => within(arg, place.path as string)),
  );
  const table = named.length > 0 && process.platform === "linux" ? mountTable() : null;
  const marked: (MarkedPlace & { path: string })[] = [];
  for (const { mark, path } of named) {
    const mount = table === null ? null : mountOf(path, table);
    if (mount !== null) marked.push({ mark, mount, under: holding(literal, path), path });
  }
  marked.sort((a, b) => b.path.length - a.path.length);
  const rename = (arg: string) => {
    const place = marked.find((candidate) => within(arg, candidate.path));
    return place === undefined ? arg : place.mark + arg.slice(place.path.length);
  };
  return {
    runs: runs.map((run) => ({ args: run.args.map(rename), cwd: rename(run.cwd) })),
    marked: marked.map(({ mark, mount, under }) => ({ mark, mount, under })),
  };
}

/** The distinct paths among `args` that hold `path` (itself apart), in their order. */
function holding(args: readonly string[], path: string): string[] {
  const holds = (arg: string) => arg.startsWith("/") && arg !== path && within(path, arg);
  return [...new Set(args.filter(holds))];
}

/** /proc/self/mountinfo's text, or null past MOUNTINFO_BYTES or unreadable. */
function mountTable(): string | null {
  return readBounded("/proc/self/mountinfo", MOUNTINFO_BYTES);
}

/** The line of the mount `path` is on, or null when it cannot be told (mountOfIn). */
function mountOf(path: string, table: string): string | null {
  if (Buffer.byteLength(path) > MARKED_PATH_BYTES) return null;
  const id = mountIdOf(path);
  return id === null ? null : mountOfIn(table, id, path);
}

/**
 * In a mountinfo table, the line of mount `id`, when no mount's point is `path` or lies below
 * it (a mount exactly at the path names the path in its line anyway); else null.
 */
export function mountOfIn(table: string, id: number, path: string): string | null {
  // Most tables name no such path at all: one search settles it, without reading every line.
  if (table.includes(` ${escapeMountPoint(path)}`)) {
    for (const line of table.split("\n")) {
      const point = line.split(" ")[4];
      if (point !== undefined && within(unescapeMountPoint(point), path)) return null;
    }
  }
  const head = `${id} `;
  const at = table.startsWith(head) ? 0 : table.indexOf(`\n${head}`) + 1;
  if (at === 0 && !table.startsWith(head)) return null;
  const end = table.indexOf("\n", at);
  return table.slice(at, end === -1 ? undefined : end);
}

/** mountinfo writes a space, a tab, a newline and a backslash in a path as three octal digits. */
function escapeMountPoint(path: string): string {
  return path.replace(
    /[ \t\n\\]/g,
    (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, "0")}`,
  );
}

function unescapeMountPoint(point: string): string {
  return point.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

/** The ID of the mount a folder is on, from /proc/self/fdinfo of a descriptor open on it. */
function mountIdOf(folder: string): number | null {
  let fd: number | null = null;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    const info = readBounded(`/proc/self/fdinfo/${fd}`, FDINFO_BYTES);
    const at = info === null ? -1 : info.indexOf("mnt_id:");
    return at === -1 ? null : Number.parseInt((info as string).slice(at + 7).trim(), 10);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** An fdinfo file is a few lines (a directory's: pos, flags, mnt_id, ino). */
const FDINFO_BYTES = 4096;

/**
 * A /proc file's text, read as the store reads a small file (its size reads as 0, so the read
 * goes on to EOF within the bound), or null past `bound` bytes or unreadable.
 */
function readBounded(path: string, bound: number): string | null {
  try {
    const read = readRegularFileSync(path, bound);
    return read.kind === "bytes" ? read.bytes.toString("utf8") : null;
  } catch {
    return null;
  }
}
