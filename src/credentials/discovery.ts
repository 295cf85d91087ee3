/**
 * The credentials room's reading side: which credential a provider has, found without network.
 * The catalog (readiness, refresh), turn admission, ACP's auth methods and doctor all ask here.
 */
import {
  ClaudeCredentialsFile,
  CodexAuthFile,
  type CredentialPaths,
  type McAuthEntry,
  McAuthFile,
  readCredentialFile,
} from "../store/credentials.js";
import type { PROVIDER_TYPES } from "../store/settings.js";
import { envCredential } from "./env-credential.js";

/**
 * What the credentials room reads of a provider: where its credential may come from, and where a
 * Codex token is renewed. models' resolved `Provider` is one (it adds the base URL and the
 * fingerprint).
 */
export interface ProviderAccess {
  id: string;
  type: (typeof PROVIDER_TYPES)[number];
  /** The environment variable holding an API key (checked before `auth.json`). */
  api_key_env: string | null;
  /** Codex only: where OAuth tokens are renewed. */
  token_url: string | null;
}

/**
 * Credential discovery without network: where a provider's credential comes from, in order.
 * - an `api_key_env` variable (empty counts as unset), for API-key providers and anthropic;
 * - mc's own `MC_HOME/auth.json` entry for the provider;
 * - codex: Codex's `auth.json` (`tokens.access_token` / `refresh_token`);
 * - anthropic: Claude's `.credentials.json` (`claudeAiOauth.accessToken`).
 * A custom provider with no key configured (no `api_key_env`, no `auth.json` entry) is keyless:
 * local servers such as Ollama or llama.cpp need none, and no `Authorization` header is sent.
 * One that names a key variable which is unset still needs it: a key was meant to be there.
 */
export type Credential =
  | { kind: "api_key"; key: string }
  | { kind: "keyless" }
  | { kind: "oauth_bearer"; token: string }
  | CodexCredential;

export interface CodexCredential {
  kind: "codex";
  /** The file the tokens came from, so renewed ones go back there. */
  source: "mc" | "codex";
  access_token: string;
  refresh_token: string | null;
  account_id: string | null;
  expires_at_ms: number | null;
  last_refresh_ms: number | null;
}

export interface AuthContext {
  env: NodeJS.ProcessEnv;
  paths: CredentialPaths;
  now?: number;
}

export async function discoverCredential(
  provider: ProviderAccess,
  context: AuthContext,
): Promise<Credential | null> {
  const fromEnv = envCredential(provider, context.env);
  if (fromEnv) return fromEnv;
  const file = await readCredentialFile(context.paths.mcAuth, McAuthFile());
  const entry = file?.[provider.id];
  if (entry) {
    const fromMc = mcCredential(provider, entry, context);
    if (fromMc) return fromMc;
  }
  if (provider.type === "codex") return codexFileCredential(context);
  if (provider.type === "anthropic") return claudeCredential(context);
  if (provider.type === "openai-compatible" && !provider.api_key_env && !entry)
    return { kind: "keyless" };
  return null;
}

/** Authentication readiness as `model.catalog.status` reports it for relevant providers. */
export async function authenticationReady(
  provider: ProviderAccess,
  context: AuthContext,
): Promise<boolean> {
  return (await discoverCredential(provider, context)) !== null;
}

function mcCredential(
  provider: ProviderAccess,
  entry: McAuthEntry,
  context: AuthContext,
): Credential | null {
  if (entry.type === "api_key") {
    return entry.key && provider.type !== "codex" ? { kind: "api_key", key: entry.key } : null;
  }
  const refresh = entry.refresh_token || null;
  const expiresAt = timeMs(entry.expires_at);
  if (provider.type === "codex") {
    if (!entry.access_token && !refresh) return null;
    return {
      kind: "codex",
      source: "mc",
      access_token: entry.access_token,
      refresh_token: refresh,
      account_id: null,
      expires_at_ms: expiresAt,
      last_refresh_ms: null,
    };
  }
  if (provider.type !== "anthropic" || !entry.access_token) return null;
  // An expired token with a refresh token still counts as ready (the provider may renew it).
  if (expiresAt !== null && expiresAt <= (context.now ?? Date.now()) && !refresh) return null;
  return { kind: "oauth_bearer", token: entry.access_token };
}

async function codexFileCredential(context: AuthContext): Promise<Credential | null> {
  const file = await readCredentialFile(context.paths.codexAuth, CodexAuthFile());
  const tokens = file?.tokens;
  if (!tokens || (!tokens.access_token && !tokens.refresh_token)) return null;
  return {
    kind: "codex",
    source: "codex",
    access_token: tokens.access_token ?? "",
    refresh_token: tokens.refresh_token || null,
    account_id: tokens.account_id ?? null,
    expires_at_ms: null,
    last_refresh_ms: timeMs(file.last_refresh),
  };
}

async function claudeCredential(context: AuthContext): Promise<Credential | null> {
  const file = await readCredentialFile(context.paths.claudeCredentials, ClaudeCredentialsFile());
  const oauth = file?.claudeAiOauth;
  if (!oauth?.accessToken) return null;
  const expired =
    typeof oauth.expiresAt === "number" && oauth.expiresAt <= (context.now ?? Date.now());
  if (expired && !oauth.refreshToken) return null;
  return { kind: "oauth_bearer", token: oauth.accessToken };
}

function timeMs(value: number | string | null | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}
