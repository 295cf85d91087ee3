/**
 * The attachment store (docs/store.md, "Attachments"): `MC_HOME/attachments/<sha256>`, one file
 * per image, named by the SHA-256 of its bytes, so that the same image sent twice (or by two
 * sessions) is one file, and a history names it by that hash instead of carrying its bytes.
 * Files are written atomically (mode 0600, the folder 0700) and never changed in place.
 */
import { createHash, randomBytes } from "node:crypto";
import { link, lstat, rename, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import { errorCode, readRegularFile } from "./safe-read.js";

const SHA256 = /^[0-9a-f]{64}$/;

export function attachmentsDir(home: string): string {
  return join(home, "attachments");
}

function attachmentPath(home: string, sha256: string): string {
  if (!SHA256.test(sha256)) throw new Error("not an attachment name");
  return join(attachmentsDir(home), sha256);
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Makes sure the store has this image, and marks it as just used (its mtime now): a file of
 * the right size is only touched, anything else at its name (missing, a symlink, a short file)
 * is replaced atomically. A turn calls it before the `user_message` that names the image and
 * again after it: a deletion's reclaim (reclaimAttachment) keeps a file touched since its scan
 * began, and a file it took away in between is written again by the second call.
 */
export async function keepAttachment(home: string, sha256: string, bytes: Buffer): Promise<void> {
  const path = attachmentPath(home, sha256);
  try {
    const seen = await lstat(path);
    if (seen.isFile() && seen.size === bytes.length) {
      const now = new Date();
      await utimes(path, now, now);
      return;
    }
  } catch {
    // Missing (or gone between the two calls): written below.
  }
  await writeFileAtomic(path, bytes, 0o600);
}

/** The image's bytes, or null when the store does not have them whole (or they are unsafe). */
export async function readAttachment(
  home: string,
  sha256: string,
  maxBytes: number,
): Promise<Buffer | null> {
  try {
    const read = await readRegularFile(attachmentPath(home, sha256), maxBytes);
    if (read.kind !== "bytes" || sha256Of(read.bytes) !== sha256) return null;
    return read.bytes;
  } catch {
    return null;
  }
}

/**
 * Removes the image unless it was used (kept) at or after `since`, an epoch-milliseconds
 * time taken before the caller looked for other references. The file is first moved aside, so
 * that a turn's keep either touched it before the move (its mtime says so, and it is put back)
 * or finds it missing after and writes it anew; only a file nobody kept is unlinked.
 * True when it was removed.
 */
export async function reclaimAttachment(
  home: string,
  sha256: string,
  since: number,
): Promise<boolean> {
  const path = attachmentPath(home, sha256);
  const aside = join(attachmentsDir(home), `.${sha256}.${randomBytes(6).toString("hex")}.reclaim`);
  try {
    await rename(path, aside);
  } catch {
    return false;
  }
  let used = true;
  try {
    used = (await lstat(aside)).mtimeMs >= since;
  } catch {}
  if (used) {
    await link(aside, path).catch((error) => {
      // EEXIST: a turn wrote it again meanwhile; that copy is as good.
      if (errorCode(error) !== "EEXIST") throw error;
    });
  }
  await unlink(aside).catch(() => {});
  return !used;
}

/** How far back a reclaim's `since` is set: file times may be coarser than the clock. */
export const RECLAIM_CLOCK_MARGIN_MS = 2000;
