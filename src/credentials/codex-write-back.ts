import {
  type CredentialPaths,
  type CredentialUpdateOptions,
  updateCredentialFile,
} from "../store/credentials.js";
import type { CodexCredential } from "./discovery.js";

/** What a token endpoint answered that is written back (the renewal's parsed answer is one). */
interface RenewedTokens {
  access_token: string;
  refresh_token?: string | undefined;
  id_token?: string | undefined;
}

/**
 * Writes renewed tokens back where they came from, changing only the fields mc owns: Codex's
 * `tokens.access_token` / `refresh_token` / `id_token` and `last_refresh`, or mc's own entry of
 * this provider in `MC_HOME/auth.json` (with `expiresAtMs` as its `expires_at`). Everything else
 * in the file stays as it was; the store's compare-and-retry write keeps other writers' changes.
 */
export async function writeBackRenewal(
  credential: CodexCredential,
  renewed: RenewedTokens,
  expiresAtMs: number | null,
  providerId: string,
  paths: CredentialPaths,
  now: number,
  write: CredentialUpdateOptions = {},
): Promise<void> {
  const refreshToken = renewed.refresh_token ?? credential.refresh_token ?? undefined;
  if (credential.source === "codex") {
    return updateCredentialFile(
      paths.codexAuth,
      (file) => {
        const tokens = isRecord(file.tokens) ? file.tokens : {};
        tokens.access_token = renewed.access_token;
        tokens.refresh_token = refreshToken;
        if (renewed.id_token) tokens.id_token = renewed.id_token;
        file.tokens = tokens;
        file.last_refresh = new Date(now).toISOString();
      },
      write,
    );
  }
  return updateCredentialFile(
    paths.mcAuth,
    (file) => {
      file[providerId] = {
        type: "oauth",
        access_token: renewed.access_token,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        expires_at: expiresAtMs,
      };
    },
    write,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
