import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "./atomic-write.js";
import { readRegularFile, UnsafeStoreFile } from "./safe-read.js";
import { parseJson } from "./settings.js";

/**
 * Credential files. mc's own `MC_HOME/auth.json` (mode 0600), Codex's `auth.json` under
 * `CODEX_HOME` and Claude's `.credentials.json` under `CLAUDE_CONFIG_DIR`. Each is read safely
 * (regular file, no symlink, bounded); an absent, unsafe or malformed file yields no credential.
 */
export const CREDENTIAL_FILE_BYTES = 1_048_576;

export const McAuthEntry = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("api_key"), key: z.string() }),
  z.strictObject({
    type: z.literal("oauth"),
    access_token: z.string(),
    refresh_token: z.string().optional(),
    /** Milliseconds since the epoch, or an ISO time. */
    expires_at: z.union([z.number(), z.string()]).nullable().optional(),
  }),
]);
export const McAuthFile = z.record(z.string(), McAuthEntry);
export type McAuthEntry = z.infer<typeof McAuthEntry>;
export type McAuthFile = z.infer<typeof McAuthFile>;

/** Codex's file: only the fields mc reads are checked; the rest is kept as it was on rewrite. */
export const CodexAuthFile = z.looseObject({
  tokens: z.looseObject({
    access_token: z.string().optional(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
    account_id: z.string().nullable().optional(),
  }),
  last_refresh: z.string().nullable().optional(),
});
export type CodexAuthFile = z.infer<typeof CodexAuthFile>;

export const ClaudeCredentialsFile = z.looseObject({
  claudeAiOauth: z.looseObject({
    accessToken: z.string().optional(),
    refreshToken: z.string().optional(),
    expiresAt: z.number().nullable().optional(),
  }),
});
export type ClaudeCredentialsFile = z.infer<typeof ClaudeCredentialsFile>;

export interface CredentialPaths {
  mcAuth: string;
  codexAuth: string;
  claudeCredentials: string;
}

/** Where the credential files are; empty variables count as unset. */
export function credentialPaths(home: string, env: NodeJS.ProcessEnv): CredentialPaths {
  const userHome = env.HOME || homedir();
  return {
    mcAuth: join(home, "auth.json"),
    codexAuth: join(env.CODEX_HOME || join(userHome, ".codex"), "auth.json"),
    claudeCredentials: join(
      env.CLAUDE_CONFIG_DIR || join(userHome, ".claude"),
      ".credentials.json",
    ),
  };
}

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

/**
 * Read-modify-write of a credential file (renewed tokens): the current file is read as a plain
 * JSON object, `update` changes only what it owns, and the result replaces the file atomically
 * with mode 0600. Every other key (other providers' entries, fields mc does not know) is kept
 * as it was. A file that exists but is unsafe, oversized or not a JSON object is never
 * overwritten (that would destroy the user's other credentials): `CredentialFileUnusable`.
 */
export async function updateCredentialFile(
  path: string,
  update: (file: Record<string, unknown>) => void,
): Promise<void> {
  let file: Record<string, unknown> = {};
  try {
    const read = await readRegularFile(path, CREDENTIAL_FILE_BYTES);
    if (read.kind === "too_large") throw new CredentialFileUnusable();
    if (read.kind === "bytes") {
      const json = parseJson(read.bytes);
      if (typeof json !== "object" || json === null || Array.isArray(json))
        throw new CredentialFileUnusable();
      file = json as Record<string, unknown>;
    }
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw new CredentialFileUnusable();
    throw error;
  }
  update(file);
  await writeFileAtomic(path, Buffer.from(`${JSON.stringify(file, null, 2)}\n`), 0o600);
}
