/**
 * The git spawner's temp folders left by children that could not clean up (kill -9: no exit
 * handler runs), swept at the next child's first git call (docs/checkpoints.md, "Where it
 * lives"). A folder is `<prefix><pid>-XXXXXX`: it goes when it is this user's and no process
 * has that pid any more. A pid reused meanwhile keeps it until the next sweep after that
 * process ends. Folders of the older naming (`<prefix>XXXXXX`, no pid) go once untouched for a
 * day (a live child writes into its folder at every git call). Runs in the background; every
 * failure is ignored (another child may sweep the same folder at once).
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

const LEGACY_AGE_MS = 24 * 60 * 60 * 1000;

export async function sweepStaleDirs(root: string, prefix: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const withPid = /^(\d+)-[A-Za-z0-9]{6}$/.exec(rest);
    const legacy = /^[A-Za-z0-9]{6}$/.test(rest);
    if (!withPid && !legacy) continue;
    const path = join(root, name);
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isDirectory() || stats.uid !== uid) continue;
    const stale = withPid ? !alive(Number(withPid[1])) : Date.now() - stats.mtimeMs > LEGACY_AGE_MS;
    if (stale) await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

/** Whether a process has this pid (EPERM: one of another user's, alive). */
function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
