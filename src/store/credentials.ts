import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";
import { type RenameGate, writeFileAtomic } from "./atomic-write.js";
import { readRegularFile, readRegularFileSync, UnsafeStoreFile } from "./safe-read.js";
import { parseJson } from "./settings.js";

/**
 * Credential files. mc's own `MC_HOME/auth.json` (mode 0600), Codex's `auth.json` under
 * `CODEX_HOME` and Claude's `.credentials.json` under `CLAUDE_CONFIG_DIR`. Each is read safely
 * (regular file, no symlink, bounded); an absent, unsafe or malformed file yields no credential.
 */
export const CREDENTIAL_FILE_BYTES = 1_048_576;

export const McAuthEntry = lazy(() =>
  z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("api_key"), key: z.string() }),
    z.strictObject({
      type: z.literal("oauth"),
      access_token: z.string(),
      refresh_token: z.string().optional(),
      /** Milliseconds since the epoch, or an ISO time. */
      expires_at: z.union([z.number(), z.string()]).nullable().optional(),
    }),
  ]),
);
export const McAuthFile = lazy(() => z.record(z.string(), McAuthEntry()));
export type McAuthEntry = Infer<typeof McAuthEntry>;
export type McAuthFile = Infer<typeof McAuthFile>;

/** Codex's file: only the fields mc reads are checked; the rest is kept as it was on rewrite. */
export const CodexAuthFile = lazy(() =>
  z.looseObject({
    tokens: z.looseObject({
      access_token: z.string().optional(),
      refresh_token: z.string().optional(),
      id_token: z.string().optional(),
      account_id: z.string().nullable().optional(),
    }),
    last_refresh: z.string().nullable().optional(),
  }),
);
export type CodexAuthFile = Infer<typeof CodexAuthFile>;

export const ClaudeCredentialsFile = lazy(() =>
  z.looseObject({
    claudeAiOauth: z.looseObject({
      accessToken: z.string().optional(),
      refreshToken: z.string().optional(),
      expiresAt: z.number().nullable().optional(),
    }),
  }),
);
export type ClaudeCredentialsFile = Infer<typeof ClaudeCredentialsFile>;

export { type CredentialPaths, credentialPaths } from "./credential-paths.js";

/** A parsed credential file, or null when absent, unsafe, oversized or malformed. */
export async function readCredentialFile<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
  try {
    const read = await readRegularFile(path, CREDENTIAL_FILE_BYTES);
    if (read.kind !== "bytes") return null;
    const parsed = schema.safeParse(parseJson(read.bytes));
    return parsed.success ? parsed.data : null;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) return null;
    throw error;
  }
}

/** A credential file that exists but is not a JSON object mc can safely rewrite. */
export class CredentialFileUnusable extends Error {
  constructor() {
    super("credential file cannot be rewritten");
    this.name = "CredentialFileUnusable";
  }
}

/** How often a merge is redone because the file changed under it, before giving up. */
export const CREDENTIAL_UPDATE_ATTEMPTS = 6;

export interface CredentialUpdateOptions {
  /**
   * The atomic write each attempt's merged file goes through, with the gate that compares the
   * file right before the rename (default `writeFileAtomic`).
   */
  write?: AtomicFileWrite;
}

/** `writeFileAtomic`'s shape, as a credential update calls it. */
export type AtomicFileWrite = (
  path: string,
  bytes: Uint8Array,
  mode: number,
  gate: RenameGate,
) => Promise<void>;

/**
 * Read-modify-write of a credential file (renewed tokens): the current file is read as a plain
 * JSON object, `update` changes only what it owns, and the result replaces the file atomically
 * with mode 0600. Every other key (other providers' entries, fields mc does not know) is kept
 * as it was. A file that exists but is unsafe, oversized or not a JSON object is never
 * overwritten (that would destroy the user's other credentials): `CredentialFileUnusable`.
 *
 * Compare-and-retry, not a lock: the Codex CLI rewrites its auth.json in place and honours no
 * lock, so none of ours could keep it out. Right before the rename the file is read again; if
 * its bytes are no longer those the merge started from, another writer got in between: the
 * temp file is dropped and the merge redone on what is there now (a half-written file, as an
 * in-place rewrite shows for a moment, counts as changed), a bounded number of times
 * (`CredentialFileBusy` past that). What is left is the span between that last read and the
 * rename itself, a few system calls, instead of a whole write and fsync.
 */
export async function updateCredentialFile(
  path: string,
  update: (file: Record<string, unknown>) => void,
  options: CredentialUpdateOptions = {},
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const seen = await currentBytes(path);
    const file = seen === null ? {} : asObject(seen);
    if (file === null) {
      // Not JSON: a writer may be in the middle of rewriting it; unusable if it stays so.
      if (attempt >= CREDENTIAL_UPDATE_ATTEMPTS) throw new CredentialFileUnusable();
      await pause(attempt);
      continue;
    }
    update(file);
    const bytes = Buffer.from(`${JSON.stringify(file, null, 2)}\n`);
    try {
      await (options.write ?? writeFileAtomic)(path, bytes, 0o600, (rename) => {
        if (!sameBytes(currentBytesSync(path), seen)) throw new CredentialFileChanged();
        return rename();
      });
      return;
    } catch (error) {
      if (!(error instanceof CredentialFileChanged)) throw error;
      if (attempt >= CREDENTIAL_UPDATE_ATTEMPTS) throw new CredentialFileBusy();
      await pause(attempt);
    }
  }
}

/** The file kept changing under every attempt: nothing was written. */
export class CredentialFileBusy extends Error {
  constructor() {
    super("credential file kept changing");
    this.name = "CredentialFileBusy";
  }
}

class CredentialFileChanged extends Error {}

/** The file's bytes, or null when there is none; unsafe or oversized: `CredentialFileUnusable`. */
async function currentBytes(path: string): Promise<Buffer | null> {
  try {
    const read = await readRegularFile(path, CREDENTIAL_FILE_BYTES);
    if (read.kind === "too_large") throw new CredentialFileUnusable();
    return read.kind === "bytes" ? Buffer.from(read.bytes) : null;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw new CredentialFileUnusable();
    throw error;
  }
}

/**
 * The same, synchronously: it runs inside the rename gate, so that nothing else of this process
 * runs between the comparison and the rename. Anything unreadable counts as changed.
 */
function currentBytesSync(path: string): Buffer | null | "unreadable" {
  try {
    const read = readRegularFileSync(path, CREDENTIAL_FILE_BYTES);
    return read.kind === "bytes"
      ? Buffer.from(read.bytes)
      : read.kind === "missing"
        ? null
        : "unreadable";
  } catch {
    return "unreadable";
  }
}

function sameBytes(now: Buffer | null | "unreadable", seen: Buffer | null): boolean {
  if (now === "unreadable") return false;
  return now === null || seen === null ? now === seen : now.equals(seen);
}

function asObject(bytes: Buffer): Record<string, unknown> | null {
  const json = parseJson(bytes);
  return typeof json === "object" && json !== null && !Array.isArray(json)
    ? (json as Record<string, unknown>)
    : null;
}

/** 10, 20, 40... ms with jitter, so that two retrying writers do not stay in step. */
function pause(attempt: number): Promise<void> {
  const ms = 10 * 2 ** (attempt - 1) * (0.5 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}
