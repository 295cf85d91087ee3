/**
 * Applies a revert plan to the workspace. Every step is atomic on its own and the whole is
 * idempotent, so a run killed at any moment (kill -9) leaves no half-written file, and running
 * the plan again (computed afresh from the files then) finishes the job:
 * 1. files created since are removed (unlink), then the folders left empty that the checkpoint
 *    has not (rmdir, deepest first);
 * 2. every file to restore or recreate is written to a temp file beside it (fsynced, its mode
 *    set), then renamed over its name; a symlink is made under a temp name and renamed too;
 * 3. the checkpoint's empty folders are made again.
 * A FIFO, socket or device (never recorded) where the checkpoint has a file or a folder is
 * replaced like any changed file: the rename goes over it, a folder's `mkdir` unlinks it.
 * Temp files are named `.mc-revert.<tag>.<hex>.tmp`, the tag the revert's journal holds with the
 * folders they are made in: a temp file a kill left behind may be hidden from the checkpoints
 * by the workspace's `.gitignore` (`*.tmp`), so the next run finds it by that name instead
 * (`removeTemps`), never by a snapshot. Paths the checkpoint left out (over 8 MiB, nested
 * repositories) are never touched.
 */
import { randomBytes } from "node:crypto";
import {
  lstat,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rmdir,
  symlink,
  unlink,
} from "node:fs/promises";
import type { RevertPlan } from "./plan.js";
import { parentOf } from "./plan.js";
import { insideRoot, onDisk } from "./raw-paths.js";
import type { ShadowRepo } from "./shadow-repo.js";

/** How many files' contents are read from the shadow repository at once. */
const BATCH_FILES = 32;

/** A fresh tag for one run's temp file names (the journal keeps it). */
export function newTempTag(): string {
  return randomBytes(8).toString("hex");
}

/** The folders (relative, "" the root) a run of `plan` makes its temp files in. */
export function tempDirsOf(plan: RevertPlan): string[] {
  const dirs = new Set<string>();
  for (const p of plan.paths)
    if (p.change === "restored" || p.change === "recreated") dirs.add(parentOf(p.path));
  return [...dirs].sort();
}

/**
 * Removes the temp files an earlier run tagged `tag` left in `dirs` (a kill -9 mid-write),
 * whatever the workspace's `.gitignore` says of them. Only names with that run's tag are
 * touched, and never through a folder leading outside the workspace.
 */
export async function removeTemps(
  root: string,
  tag: string,
  dirs: readonly string[],
): Promise<void> {
  const prefix = `.mc-revert.${tag}.`;
  for (const dir of dirs) {
    const folder = onDisk(root, dir);
    const real = await realpath(folder, { encoding: "buffer" }).catch(() => null);
    if (real === null || !insideRoot(root, real)) continue;
    const names = await readdir(folder, { encoding: "buffer" }).catch(() => [] as Buffer[]);
    for (const name of names.map((n) => n.toString("latin1")))
      if (name.startsWith(prefix) && name.endsWith(".tmp"))
        await ignoreMissing(unlink(onDisk(root, dir === "" ? name : `${dir}/${name}`)));
  }
}

export async function applyPlan(repo: ShadowRepo, plan: RevertPlan, tag: string): Promise<void> {
  const root = repo.workspace;
  const removed = plan.paths.filter((p) => p.change === "removed");
  removed.sort((a, b) => b.path.split("/").length - a.path.split("/").length);
  for (const entry of removed) await ignoreMissing(unlink(onDisk(root, entry.path)));
  for (const dir of plan.dropDirs)
    await ignoreCodes(rmdir(onDisk(root, dir)), ["ENOENT", "ENOTEMPTY", "EEXIST", "ENOTDIR"]);
  const writes = plan.paths.filter((p) => p.change === "restored" || p.change === "recreated");
  for (let at = 0; at < writes.length; at += BATCH_FILES) {
    const batch = writes.slice(at, at + BATCH_FILES);
    const contents = await repo.blobs(batch.map((p) => p.target?.object ?? ""));
    for (const entry of batch) {
      const target = entry.target;
      const data = target ? contents.get(target.object) : undefined;
      if (!target || !data) throw new Error("a checkpoint object is missing");
      await writeOne(root, entry.path, target.mode, data, tag);
    }
  }
  for (const dir of plan.makeDirs) await makeDir(root, dir);
}

/**
 * `mkdir -p` of a workspace folder, replacing on its way a FIFO, socket or device that stands
 * where the checkpoint has a folder (a checkpoint never records such an entry: it is replaced
 * as any changed file is). A regular file or a link there was removed by the plan already.
 */
async function makeDir(root: string, dir: string): Promise<void> {
  try {
    await mkdir(onDisk(root, dir), { recursive: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") throw error;
  }
  const parts = dir.split("/");
  for (let at = 1; at <= parts.length; at++) {
    const path = onDisk(root, parts.slice(0, at).join("/"));
    const found = await lstat(path).catch(() => null);
    if (found === null) break;
    if (!found.isDirectory() && !found.isFile() && !found.isSymbolicLink()) await unlink(path);
  }
  await mkdir(onDisk(root, dir), { recursive: true });
}

async function writeOne(
  root: string,
  path: string,
  mode: string,
  data: Buffer,
  tag: string,
): Promise<void> {
  const target = onDisk(root, path);
  const dir = parentOf(path);
  const parent = onDisk(root, dir);
  await makeDir(root, dir);
  // Never through a symlinked folder (one the checkpoint does not see, an ignored one) out of
  // the workspace.
  const real = await realpath(parent, { encoding: "buffer" });
  if (!insideRoot(root, real)) throw new Error("a folder leads outside");
  const name = `.mc-revert.${tag}.${randomBytes(6).toString("hex")}.tmp`;
  const temp = onDisk(root, dir === "" ? name : `${dir}/${name}`);
  if (mode === "120000") {
    // A link's target is bytes too (a blob): made as it was recorded.
    await symlink(data, temp);
  } else {
    const current = await lstat(target).catch(() => null);
    const base = current?.isFile() ? current.mode & 0o666 : 0o644;
    const bits = mode === "100755" ? base | ((base & 0o444) >> 2) : base;
    const handle = await open(temp, "wx", bits);
    try {
      await handle.writeFile(data);
      await handle.chmod(bits);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

function ignoreMissing(work: Promise<unknown>): Promise<void> {
  return ignoreCodes(work, ["ENOENT"]);
}

async function ignoreCodes(work: Promise<unknown>, codes: string[]): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!codes.includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
  }
}
