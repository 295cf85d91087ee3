/**
 * The trust record of one workspace: `MC_HOME/trust/<key>.json` (docs/trust.md). `<key>` is the
 * first 32 hex digits of the SHA-256 of the canonical workspace path (as for the approval rules),
 * and the file names its workspace again, so a record under the wrong name trusts nothing. Read
 * synchronously (the child reads it once, at its start, beside the settings); written atomically
 * by a trust, removed by a revoke. A damaged, oversized or unsafe record is no trust.
 */
import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";
import { AtomicWriteError, type RenameGate, writeFileAtomic } from "./atomic-write.js";
import { errorCode, readRegularFileSync, UnsafeStoreFile } from "./safe-read.js";
import { parseJson } from "./settings.js";

/** A record over this size is no trust (one with the longest path is under 17 KiB). */
export const TRUST_FILE_BYTES = 65_536;

export const TrustRecord = lazy(() =>
  z.strictObject({
    version: z.literal(1),
    workspace: z.string().min(1).max(16_384),
    /** SHA-256 (lowercase hex) of the trusted members (trust/trust-hash.ts). */
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    trusted_at: z.string().max(64),
  }),
);
export type TrustRecord = Infer<typeof TrustRecord>;

/** A trust change that could not be made; carries no path. */
export class TrustUnavailable extends Error {
  constructor() {
    super("the trust record could not be written");
    this.name = "TrustUnavailable";
  }
}

export function trustFolder(home: string): string {
  return join(home, "trust");
}

export function trustFilePath(home: string, workspace: string): string {
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  return join(trustFolder(home), `${key}.json`);
}

/** The record of `workspace` (canonical), or null: absent, damaged, unsafe, another workspace. */
export function readTrustRecord(home: string, workspace: string): TrustRecord | null {
  if (!folderSafe(home)) return null;
  try {
    const read = readRegularFileSync(trustFilePath(home, workspace), TRUST_FILE_BYTES);
    if (read.kind !== "bytes") return null;
    const parsed = TrustRecord().safeParse(parseJson(read.bytes));
    return parsed.success && parsed.data.workspace === workspace ? parsed.data : null;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) return null;
    throw error;
  }
}

/** Replaces the record (temp file, fsync, rename, folder fsync; 0600, the folder 0700). */
export async function writeTrustRecord(
  home: string,
  record: TrustRecord,
  gate?: RenameGate,
): Promise<void> {
  if (!folderSafe(home)) throw new TrustUnavailable();
  const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
  if (bytes.length > TRUST_FILE_BYTES) throw new TrustUnavailable();
  try {
    await writeFileAtomic(trustFilePath(home, record.workspace), bytes, 0o600, gate);
  } catch (error) {
    if (error instanceof AtomicWriteError) throw new TrustUnavailable();
    throw error;
  }
}

/** Removes the record (a missing one is already revoked). `gate` wraps the unlink. */
export async function removeTrustRecord(
  home: string,
  workspace: string,
  gate: RenameGate = (act) => act(),
): Promise<void> {
  if (!folderSafe(home)) throw new TrustUnavailable();
  // A gate's refusal (a cancelled request) is the caller's to answer: it propagates as it is.
  const removing = gate(() => unlink(trustFilePath(home, workspace)));
  try {
    await removing;
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw new TrustUnavailable();
  }
}

/** `MC_HOME/trust` is a real folder, or absent; a symlink or a file there is unsafe. */
function folderSafe(home: string): boolean {
  try {
    return lstatSync(trustFolder(home)).isDirectory();
  } catch (error) {
    // Missing (a write creates it; a home that is a plain file fails that write).
    const code = errorCode(error);
    return code === "ENOENT" || code === "ENOTDIR";
  }
}
