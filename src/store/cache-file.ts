import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { tempName } from "./atomic-write.js";

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * One file of the verdict cache (a verdict, a folder's `.home` marker): a temp file
 * `.<target>.<pid>.<12 hex>.tmp` beside it (mode 0600, never through a symlink), then a rename
 * over the target, so a reader sees the old file or the new one. No fsync: a cache needs atomic
 * visibility, not durability. Throws when it fails, the temp file removed. `tempBase` names the
 * temp file when the target's own name would not do (`.home`'s temp is `.home.<pid>...tmp`).
 */
export async function writeCacheFile(
  folder: string,
  target: string,
  bytes: Buffer | string,
  tempBase = target,
): Promise<void> {
  const temp = join(folder, tempName(tempBase, process.pid));
  try {
    const handle = await open(temp, WRITE_FLAGS, 0o600);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await rename(temp, join(folder, target));
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}
