/**
 * What a revert does, path by path: the files now against the checkpoint restored, and against
 * the session's last after-turn checkpoint (what changed outside its turns). Pure: computed
 * from trees' entries, nothing written.
 */
import type { RevertChange } from "../../protocol/schemas/checkpoints.js";
import type { Snapshot, TreeEntry } from "./shadow-repo.js";

export interface PlannedPath {
  path: string;
  change: RevertChange;
  changedOutside: boolean;
  /** What the path holds now (null: nothing recorded) and what it gets back (null: removed). */
  now: TreeEntry | null;
  target: TreeEntry | null;
}

export interface RevertPlan {
  /** Every path listed, sorted by path (the result's order). */
  paths: PlannedPath[];
  /** Folders the revert removes when they end up empty (not in the checkpoint), deepest first. */
  dropDirs: string[];
  /** Empty folders of the checkpoint to make again. */
  makeDirs: string[];
  /** Files changed since the last turn ended (or that could not be told: no baseline). */
  workspaceChanged: boolean;
}

interface PlanInputs {
  target: Snapshot & { entries: Map<string, TreeEntry> };
  now: Snapshot & { entries: Map<string, TreeEntry> };
  /** The session's last after-turn checkpoint; null when it has none (cannot tell: changed). */
  baseline: (Snapshot & { entries: Map<string, TreeEntry> }) | null;
}

export function planRevert({ target, now, baseline }: PlanInputs): RevertPlan {
  const excludedThen = target.meta.excluded;
  const paths = new Map<string, PlannedPath>();
  const outside = baseline ? changedPaths(baseline.entries, now.entries) : new Set<string>();
  const all = new Set([...target.entries.keys(), ...now.entries.keys(), ...outside]);
  for (const path of all) {
    const then = target.entries.get(path) ?? null;
    const current = now.entries.get(path) ?? null;
    const changedOutside = outside.has(path);
    let change: RevertChange | null = null;
    if (then && current) change = same(then, current) ? null : "restored";
    else if (then) change = "recreated";
    else if (current) change = under(path, excludedThen) ? "skipped" : "removed";
    if (change === null && changedOutside) change = "kept";
    if (change !== null)
      paths.set(path, { path, change, changedOutside, now: current, target: then });
  }
  for (const path of [...target.meta.excluded, ...now.meta.excluded])
    if (!paths.has(path))
      paths.set(path, { path, change: "skipped", changedOutside: false, now: null, target: null });
  const targetDirs = dirsOf(target.entries.keys(), target.meta.empty_dirs);
  const dropDirs = new Set<string>();
  const candidates = [
    ...[...paths.values()].filter((p) => p.change === "removed").map((p) => parentOf(p.path)),
    ...now.meta.empty_dirs.map((dir) => dir.replace(/\/$/, "")),
  ];
  for (let dir of candidates)
    for (; dir !== "" && !targetDirs.has(dir) && !under(dir, excludedThen); dir = parentOf(dir))
      dropDirs.add(dir);
  const nowEmpty = new Set(now.meta.empty_dirs);
  return {
    paths: [...paths.values()].sort((a, b) => compare(a.path, b.path)),
    dropDirs: [...dropDirs].sort((a, b) => depth(b) - depth(a) || compare(a, b)),
    makeDirs: target.meta.empty_dirs
      .filter((dir) => !nowEmpty.has(dir))
      .map((dir) => dir.replace(/\/$/, "")),
    workspaceChanged: baseline === null || outside.size > 0 || !sameDirs(baseline, now),
  };
}

function changedPaths(before: Map<string, TreeEntry>, after: Map<string, TreeEntry>): Set<string> {
  const changed = new Set<string>();
  for (const [path, entry] of before) {
    const other = after.get(path);
    if (!other || !same(entry, other)) changed.add(path);
  }
  for (const path of after.keys()) if (!before.has(path)) changed.add(path);
  return changed;
}

function sameDirs(a: Snapshot, b: Snapshot): boolean {
  return a.meta.empty_dirs.join("\0") === b.meta.empty_dirs.join("\0");
}

function same(a: TreeEntry, b: TreeEntry): boolean {
  return a.mode === b.mode && a.object === b.object;
}

/** Whether `path` is one of `excluded` (a file) or inside one of them (a `dir/`). */
function under(path: string, excluded: readonly string[]): boolean {
  return excluded.some((entry) =>
    entry.endsWith("/") ? `${path}/`.startsWith(entry) : path === entry,
  );
}

function dirsOf(paths: Iterable<string>, emptyDirs: readonly string[]): Set<string> {
  const dirs = new Set<string>();
  const add = (start: string) => {
    for (let dir = start; dir !== "" && !dirs.has(dir); dir = parentOf(dir)) dirs.add(dir);
  };
  for (const path of paths) add(parentOf(path));
  for (const dir of emptyDirs) add(dir.replace(/\/$/, ""));
  return dirs;
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function depth(path: string): number {
  return path.split("/").length;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
