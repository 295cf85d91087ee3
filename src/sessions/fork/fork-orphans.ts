import { lstatSync, unlinkSync } from "node:fs";
import { opendir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { processExists } from "../../store/atomic-write.js";
import { archiveDir, primaryName, sessionsDir } from "../../store/layout.js";

/** `.<id>.jsonl.<pid>.<12 hex>.tmp`: a fork's temp file, named as tempName() names it. */
const FORK_TEMP = /^\.([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.jsonl\.(\d{1,7})\.[0-9a-f]{12}\.tmp$/;
/** `.<id>.<subagent>.jsonl.<pid>.<12 hex>.tmp`: a derived history a fork copies (fork-derived.ts). */
const DERIVED_TEMP =
  /^\.([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.([A-Za-z0-9._:-]{1,64})\.jsonl\.(\d{1,7})\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes what forks whose writer process no longer exists on this host left (killed before
 * their commit, or between it and their cleanup). A live writer's (this one's included) is left
 * alone. Best effort, streamed.
 *
 * - a fork's temp file: removed;
 * - a derived history's temp file: removed; and when the fork never committed (no history
 *   `<id>.jsonl`, in `sessions/` or its archive), the name `<id>.<subagent>.jsonl` it had been
 *   linked to is removed too, but only when it is that very file (same device and inode), so
 *   nothing but the dead fork's own link is ever touched.
 */
export async function removeOrphans(home: string): Promise<void> {
  const root = sessionsDir(home);
  try {
    const dir = await opendir(root);
    for await (const entry of dir) {
      const fork = FORK_TEMP.exec(entry.name);
      const derived = fork ? null : DERIVED_TEMP.exec(entry.name);
      const pid = Number(fork?.[2] ?? derived?.[3] ?? 0);
      if (pid <= 0 || pid === process.pid || processExists(pid)) continue;
      if (derived) removeUncommittedLink(home, entry.name, derived[1] ?? "", derived[2] ?? "");
      await unlink(join(root, entry.name)).catch(() => {});
    }
  } catch {}
}

function removeUncommittedLink(home: string, temp: string, id: string, subagent: string): void {
  const root = sessionsDir(home);
  if (exists(join(root, primaryName(id))) || exists(join(archiveDir(home), primaryName(id))))
    return;
  try {
    const linked = join(root, `${id}.${subagent}.jsonl`);
    const a = lstatSync(join(root, temp), { bigint: true });
    const b = lstatSync(linked, { bigint: true });
    if (a.isFile() && b.isFile() && a.dev === b.dev && a.ino === b.ino) unlinkQuietly(linked);
  } catch {}
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    // Only a certain absence counts: anything else keeps the link (never remove on doubt).
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
