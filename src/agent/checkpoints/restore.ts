/**
 * Applies a revert plan to the workspace. Every step is atomic on its own and the whole is
 * idempotent, so a run killed at any moment (kill -9) leaves no half-written file, and running
 * the plan again (computed afresh from the files then) finishes the job:
 * 1. files created since are removed (unlink), then the folders left empty that the checkpoint
 *    has not (rmdir, deepest first);
 * 2. every file to restore or recreate is written to a temp file beside it (fsynced, its mode
 *    set), then renamed over its name; a symlink is made under a temp name and renamed too;
 * 3. the checkpoint's empty folders are made again.
 * A temp file a kill left behind is a file the checkpoint does not have: the next run removes
 * it. Paths the checkpoint left out (over 8 MiB, nested repositories) are never touched.
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
import { join } from "node:path";
import type { RevertPlan } from "./plan.js";
import { parentOf } from "./plan.js";
import type { ShadowRepo } from "./shadow-repo.js";

/** How many files' contents are read from the shadow repository at once. */
const BATCH_FILES = 32;

export async function applyPlan(repo: ShadowRepo, plan: RevertPlan): Promise<void> {
  const root = repo.workspace;
  const removed = plan.paths.filter((p) => p.change === "removed");
  removed.sort((a, b) => b.path.split("/").length - a.path.split("/").length);
  for (const entry of removed) await ignoreMissing(unlink(join(root, entry.path)));
  for (const dir of plan.dropDirs)
    await ignoreCodes(rmdir(join(root, dir)), ["ENOENT", "ENOTEMPTY", "EEXIST", "ENOTDIR"]);
  const writes = plan.paths.filter((p) => p.change === "restored" || p.change === "recreated");
  for (let at = 0; at < writes.length; at += BATCH_FILES) {
    const batch = writes.slice(at, at + BATCH_FILES);
    const contents = await repo.blobs(batch.map((p) => p.target?.object ?? ""));
    for (const entry of batch) {
      const target = entry.target;
      const data = target ? contents.get(target.object) : undefined;
      if (!target || !data) throw new Error("a checkpoint object is missing");
      await writeOne(root, entry.path, target.mode, data);
    }
  }
  for (const dir of plan.makeDirs) await mkdir(join(root, dir), { recursive: true });
}

async function writeOne(root: string, path: string, mode: string, data: Buffer): Promise<void> {
  const target = join(root, path);
  const parent = join(root, parentOf(path));
  await mkdir(parent, { recursive: true });
  // Never through a symlinked folder (one the checkpoint does not see, an ignored one) out of
  // the workspace.
  const real = await realpath(parent);
  if (real !== root && !real.startsWith(`${root}/`)) throw new Error("a folder leads outside");
  const temp = join(parent, `.mc-revert.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  if (mode === "120000") {
    await symlink(data.toString("utf8"), temp);
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

/** Removes a folder and the folders in it, bottom up, as long as they hold nothing else. */
async function pruneEmpty(path: string): Promise<void> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await pruneEmpty(join(path, entry.name));
  await ignoreCodes(rmdir(path), ["ENOENT", "ENOTEMPTY", "EEXIST", "ENOTDIR"]);
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
