import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Why an atomic write failed. `before_commit`: the target still holds its previous bytes.
 * `uncertain`: the rename may have happened (it returned an error after the fact, or the folder
 * fsync failed), so the caller must reread the target to learn what it holds.
 */
export class AtomicWriteError extends Error {
  constructor(readonly stage: "before_commit" | "uncertain") {
    super(`atomic write failed (${stage})`);
    this.name = "AtomicWriteError";
  }
}

/**
 * Replaces `path` with `bytes` so that a reader (or a crash, or kill -9) sees either the old
 * file or the new one, never a torn one: write a temp file in the same folder, fsync it, rename
 * it over the target, then fsync the folder so the rename itself is durable.
 * Creates missing parent folders with mode 0700.
 */
export async function writeFileAtomic(
  path: string,
  bytes: Uint8Array,
  mode = 0o600,
): Promise<void> {
  const folder = dirname(path);
  const temp = join(folder, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await writeAndSync(temp, bytes, mode);
  } catch {
    await unlink(temp).catch(() => {});
    throw new AtomicWriteError("before_commit");
  }
  try {
    await rename(temp, path);
  } catch {
    // rename(2) either happens or not; a failed one left the target as it was.
    await unlink(temp).catch(() => {});
    throw new AtomicWriteError("before_commit");
  }
  try {
    await syncFolder(folder);
  } catch {
    throw new AtomicWriteError("uncertain");
  }
}

async function writeAndSync(temp: string, bytes: Uint8Array, mode: number): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, mode);
  try {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
      written += bytesWritten;
    }
    // The umask may have narrowed the mode at creation; credentials must be exactly 0600.
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
