import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, opendir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { processExists } from "./process-exists.js";

export { processExists };

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
 * The two steps that commit an atomic write: the rename over the target, and the fsync of the
 * folder that makes the rename durable. The file system's own (`FILE_SYSTEM_COMMIT`) unless a
 * caller commits through others.
 */
export interface CommitSteps {
  rename(from: string, to: string): Promise<void>;
  syncFolder(folder: string): Promise<void>;
}

export const FILE_SYSTEM_COMMIT: CommitSteps = { rename, syncFolder };

/**
 * rename(2) errors after which the target certainly still holds its previous bytes. Any other
 * error (EIO above all) leaves the outcome unknown.
 */
const RENAME_NOT_DONE = new Set([
  "EACCES",
  "EBUSY",
  "EDQUOT",
  "EEXIST",
  "EINVAL",
  "EISDIR",
  "ELOOP",
  "EMLINK",
  "ENAMETOOLONG",
  "ENOENT",
  "ENOSPC",
  "ENOTDIR",
  "ENOTEMPTY",
  "EPERM",
  "EROFS",
  "EXDEV",
]);

/**
 * Wraps the rename, the commit point: it may refuse (throw) to leave the target untouched, as a
 * cancelled request's commit does. It runs synchronously right before the rename is issued.
 */
export type RenameGate = <T>(rename: () => T) => T;

const ALWAYS: RenameGate = (rename) => rename();

/**
 * Replaces `path` with `bytes` so that a reader (or a crash, or kill -9) sees either the old
 * file or the new one, never a torn one: write a temp file in the same folder, fsync it, rename
 * it over the target, then fsync the folder so the rename itself is durable.
 * Creates missing parent folders with mode 0700. When `gate` refuses the rename, the temp file
 * is removed and the gate's own error is thrown: the target was never touched.
 */
export async function writeFileAtomic(
  path: string,
  bytes: Uint8Array,
  mode = 0o600,
  gate: RenameGate = ALWAYS,
  steps: CommitSteps = FILE_SYSTEM_COMMIT,
): Promise<void> {
  const folder = dirname(path);
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
  } catch {
    throw new AtomicWriteError("before_commit");
  }
  await writeFileAtomicIn(folder, basename(path), bytes, mode, gate, steps);
}

/**
 * `writeFileAtomic` of `folder/name` in a folder that exists: nothing is created but the temp
 * file and the target. `folder` may be any path naming the folder, e.g. the `/proc/self/fd/<fd>`
 * of a folder held open (the workspace writes), so that every step happens in that very folder.
 */
export async function writeFileAtomicIn(
  folder: string,
  name: string,
  bytes: Uint8Array,
  mode = 0o600,
  gate: RenameGate = ALWAYS,
  steps: CommitSteps = FILE_SYSTEM_COMMIT,
): Promise<void> {
  const path = join(folder, name);
  const temp = join(folder, tempName(name, process.pid));
  try {
    await writeAndSync(temp, bytes, mode);
  } catch {
    await unlink(temp).catch(() => {});
    throw new AtomicWriteError("before_commit");
  }
  let renaming = false;
  try {
    await gate(() => {
      renaming = true;
      return steps.rename(temp, path);
    });
  } catch (error) {
    // Harmless if the rename did happen: the temp name is then gone.
    await unlink(temp).catch(() => {});
    if (!renaming) throw error;
    throw new AtomicWriteError(RENAME_NOT_DONE.has(codeOf(error)) ? "before_commit" : "uncertain");
  }
  try {
    await steps.syncFolder(folder);
  } catch {
    throw new AtomicWriteError("uncertain");
  }
  await removeOrphans(folder, name);
}

/**
 * `.<target name>.<writer pid>.<12 hex>.tmp`: the pid says whose temp file it is, so an orphan
 * (left by a writer killed between creating and renaming it) can be told from a live write.
 * A target name too long for that to fit NAME_MAX (255 bytes) is shortened (`tempBase`).
 */
export function tempName(target: string, pid: number): string {
  return `.${tempBase(target)}.${pid}.${randomBytes(6).toString("hex")}.tmp`;
}

/** NAME_MAX, and what a temp name adds to its base: `.`, `.<7-digit pid>.<12 hex>.tmp`. */
const NAME_MAX = 255;
const TEMP_ADDED_BYTES = 1 + 1 + 7 + 1 + 12 + 4;
const LONGEST_WHOLE_BASE = NAME_MAX - TEMP_ADDED_BYTES;
/** A shortened base ends in `~` and 8 hex digits of the SHA-256 of the whole name. */
const HASH_SUFFIX_BYTES = 9;

/**
 * The part of a temp name that names its target: the target itself when the temp name then fits
 * NAME_MAX, else its head (cut between UTF-8 characters), `~` and 8 hex digits of its SHA-256,
 * so that any valid name up to 255 bytes can be written (issue 35: names over 229 bytes could
 * not) and two long names sharing a head still have temp names of their own.
 */
export function tempBase(target: string): string {
  const bytes = Buffer.from(target, "utf8");
  if (bytes.length <= LONGEST_WHOLE_BASE) return target;
  let end = LONGEST_WHOLE_BASE - HASH_SUFFIX_BYTES;
  // Never in the middle of a character: a continuation byte is 0b10xxxxxx.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 8);
  return `${bytes.subarray(0, end).toString("utf8")}~${hash}`;
}

/** Linux's largest pid; names claiming a larger (or zero) pid are not ours to judge. */
const PID_MAX = 4_194_304;

/**
 * After a successful commit, removes the target's temp files whose writer process no longer
 * exists on this host: a temp of this process, of a live process (EPERM included), of another
 * target, or of another naming is left alone. Best effort: a failure here never fails the write.
 * Streams the folder, so memory stays bounded whatever its size.
 */
async function removeOrphans(folder: string, target: string): Promise<void> {
  const prefix = `.${tempBase(target)}.`;
  try {
    const dir = await opendir(folder);
    for await (const entry of dir) {
      if (!entry.name.startsWith(prefix)) continue;
      const match = /^(\d{1,7})\.[0-9a-f]{12}\.tmp$/.exec(entry.name.slice(prefix.length));
      const pid = match ? Number(match[1]) : 0;
      if (pid > 0 && pid <= PID_MAX && pid !== process.pid && !processExists(pid))
        await unlink(join(folder, entry.name)).catch(() => {});
    }
  } catch {
    // An unreadable folder only means orphans stay until a later write.
  }
}

function codeOf(error: unknown): string {
  const code =
    typeof error === "object" && error !== null ? (error as { code?: unknown }).code : "";
  return typeof code === "string" ? code : "";
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
