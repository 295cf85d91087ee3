/**
 * Codex OAuth renewal, for the catalog refresh (`codexBearer`) and for model calls
 * (`renewCodexCredential`): when a token needs renewing, the refresh-token exchange with the
 * provider's token URL, and the write-back of what it answered (codex-write-back.ts).
 */
import { z } from "zod";
import {
  type ExchangeBounds,
  endpointBase,
  httpExchange,
  PROVIDER_BODY_BYTES,
} from "../http/exchange.js";
import { RefreshFailure } from "../http/refresh-failure.js";
import { type Infer, lazy } from "../protocol/lazy.js";
import type { CredentialPaths, CredentialUpdateOptions } from "../store/credentials.js";
import { parseJson } from "../store/settings.js";
import { writeBackRenewal } from "./codex-write-back.js";
import type { CodexCredential, ProviderAccess } from "./discovery.js";

/** The OAuth client the Codex CLI logs in as; its refresh tokens renew only for it. */
const CODEX_CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";

/** Without a JWT `exp`, tokens older than this are renewed (as Codex itself does). */
const CODEX_REFRESH_AGE_MS = 8 * 24 * 60 * 60 * 1000;
const REJECTED_CODES = new Set([
  "refresh_token_expired",
  "refresh_token_reused",
  "refresh_token_invalidated",
]);

interface RenewalOptions {
  /** The renewal's clock (default: now). */
  now?: number;
  /** How the renewed tokens are written back (credentials.ts `CredentialUpdateOptions`). */
  write?: CredentialUpdateOptions;
}

interface CodexBearer {
  token: string;
  account_id: string | null;
}

/**
 * The bearer for Codex's models endpoint, renewing it first when it has expired. Renewed tokens
 * are written back, atomically and with mode 0600, into the file they came from.
 * The token exchange is deliberately not cancelled once started: the provider may already have
 * rotated the refresh token, and dropping the answer would lock the user out.
 */
export async function codexBearer(
  credential: CodexCredential,
  provider: ProviderAccess,
  paths: CredentialPaths,
  log: (level: "warn", message: string) => void,
  bounds: ExchangeBounds,
  options: RenewalOptions = {},
): Promise<CodexBearer> {
  const now = options.now ?? Date.now();
  if (!needsRenewal(credential, now) || !credential.refresh_token)
    return { token: credential.access_token, account_id: credential.account_id };
  const renewed = await renewCodexCredential(credential, provider, paths, log, bounds, {
    ...options,
    now,
  });
  return { token: renewed.access_token, account_id: credential.account_id };
}

/**
 * Renews now, whatever the expiry says (a model call also renews ahead of expiry and on a 401),
 * writes the renewed tokens back as `codexBearer` does, and returns the credential as it now
 * stands, so the caller keeps the rotated refresh token. Without a refresh token the answer is
 * `authentication_rejected`.
 */
export async function renewCodexCredential(
  credential: CodexCredential,
  provider: ProviderAccess,
  paths: CredentialPaths,
  log: (level: "warn", message: string) => void,
  bounds: ExchangeBounds,
  options: RenewalOptions = {},
): Promise<CodexCredential> {
  const now = options.now ?? Date.now();
  if (!credential.refresh_token) throw new RefreshFailure("authentication_rejected");
  const renewed = await exchange(credential.refresh_token, provider, bounds);
  const expiresAtMs =
    renewed.expires_in !== undefined
      ? now + Math.round(renewed.expires_in * 1000)
      : jwtExpiryMs(renewed.access_token);
  try {
    await writeBackRenewal(
      credential,
      renewed,
      expiresAtMs,
      provider.id,
      paths,
      now,
      options.write,
    );
  } catch {
    log("warn", "renewed credentials could not be saved");
  }
  return {
    ...credential,
    access_token: renewed.access_token,
    refresh_token: renewed.refresh_token ?? credential.refresh_token,
    expires_at_ms: expiresAtMs,
    last_refresh_ms: now,
  };
}

export function needsRenewal(credential: CodexCredential, now: number): boolean {
  if (!credential.access_token) return true;
  const exp = jwtExpiryMs(credential.access_token) ?? credential.expires_at_ms;
  if (exp !== null) return exp <= now;
  return (
    credential.last_refresh_ms !== null && now - credential.last_refresh_ms > CODEX_REFRESH_AGE_MS
  );
}

/** The `exp` claim of a JWT in milliseconds, or null when the token carries none. */
function jwtExpiryMs(token: string): number | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      exp?: unknown;
    };
    return typeof claims.exp === "number" ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

const TokenResponse = lazy(() =>
  z.looseObject({
    access_token: z.string().min(1),
    refresh_token: z.string().min(1).optional(),
    id_token: z.string().min(1).optional(),
    /** Seconds the access token lives (RFC 6749); preferred over the JWT `exp` for mc's entry. */
    expires_in: z.number().positive().optional(),
  }),
);
type TokenResponse = Infer<typeof TokenResponse>;

async function exchange(
  refreshToken: string,
  provider: ProviderAccess,
  bounds: ExchangeBounds,
): Promise<TokenResponse> {
  const url = endpointBase(provider.token_url ?? "");
  const response = await httpExchange(
    {
      url,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        client_id: CODEX_CLIENT_ID,
        grant_type: "refresh_token",
        refresh_token: refreshToken,
      }),
      ...bounds,
      maxBytes: PROVIDER_BODY_BYTES,
      tooLarge: "remote_unavailable",
    },
    new AbortController().signal,
  );
  const body = parseJson(response.body);
  if (response.status >= 200 && response.status < 300) {
    const parsed = TokenResponse().safeParse(body);
    if (!parsed.success) throw new RefreshFailure("remote_unavailable");
    return parsed.data;
  }
  if (response.status === 401 || REJECTED_CODES.has(errorCodeOf(body)))
    throw new RefreshFailure("authentication_rejected");
  if (response.status === 429) throw new RefreshFailure("rate_limited");
  throw new RefreshFailure(
    response.status >= 500 ? "remote_unavailable" : "authentication_rejected",
  );
}

/** OAuth error bodies spell the code as `error`, `error.code` or `code`. */
function errorCodeOf(body: unknown): string {
  if (typeof body !== "object" || body === null) return "";
  const record = body as Record<string, unknown>;
  if (typeof record.error === "string") return record.error;
  const nested = record.error as Record<string, unknown> | undefined;
  if (nested && typeof nested.code === "string") return nested.code;
  return typeof record.code === "string" ? record.code : "";
}
