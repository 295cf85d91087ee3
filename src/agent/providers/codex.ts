import { randomUUID } from "node:crypto";
import { CodexLogin } from "../../credentials/codex-login.js";
import type { CodexCredential } from "../../credentials/discovery.js";
import { RefreshFailure } from "../../http/refresh-failure.js";
import { credentialPaths } from "../../store/credentials.js";
import { failure, HttpFailure } from "./failures.js";
import type { ModelProvider, ModelRequest, ProviderFailure, ProviderOptions } from "./provider.js";
import { responsesCall } from "./responses.js";
import { responsesBody } from "./responses-format.js";
import type { OpenAiEndpoint } from "./transport.js";

/** How mc names itself to the backend (docs/providers.md says where each header comes from). */
const ORIGINATOR = "mc-agent";

/**
 * `codex`: the Responses wire format at the ChatGPT Codex backend (`base_url` + `/responses`),
 * with the OAuth bearer of a Codex login and its account header. A token near expiry is renewed
 * first; a 401 renews once and retries once. The login (credentials/codex-login.ts) shares a
 * renewal among concurrent calls and keeps the rotated tokens.
 */
export function createCodexProvider(options: ProviderOptions): ModelProvider {
  const { provider, bounds } = options;
  const login =
    options.credential?.kind === "codex"
      ? new CodexLogin(
          options.credential,
          provider,
          credentialPaths(options.home, options.env),
          options.log ?? (() => {}),
          { wallMs: bounds.idleMs, connectMs: bounds.connectMs },
        )
      : null;
  const fallbackSession = randomUUID();

  return {
    async *stream(request) {
      if (!login) throw failure("authentication_rejected", "no Codex login");
      let current = login.current;
      if (login.dueBeforeCall()) {
        const renewed = await untilAborted(renew(login), request.signal);
        if (!renewed) return;
        current = renewed;
      }
      const session = request.conversation_id ?? fallbackSession;
      const body = codexBody(request, options, session);
      const context = { request, bounds, providerType: provider.type };
      try {
        yield* responsesCall(endpoint(provider.base_url, current, session), body, context);
      } catch (error) {
        if (!(error instanceof HttpFailure && error.status === 401)) throw error;
        // Nothing was streamed before a 401: renew once and try once more.
        const renewed = await untilAborted(renew(login), request.signal);
        if (!renewed) return;
        yield* responsesCall(endpoint(provider.base_url, renewed, session), body, context);
      }
    },
  };
}

/** The Responses body plus what the backend needs: it stores nothing, and keys its cache. */
function codexBody(request: ModelRequest, options: ProviderOptions, session: string) {
  return { ...responsesBody(request, options.provider), prompt_cache_key: session };
}

function endpoint(base: string, credential: CodexCredential, session: string): OpenAiEndpoint {
  const headers: Record<string, string> = {
    originator: ORIGINATOR,
    "user-agent": `${ORIGINATOR} (${process.platform}; ${process.arch})`,
    session_id: session,
    "openai-beta": "responses=experimental",
    accept: "text/event-stream",
  };
  const account = credential.account_id ?? accountClaim(credential.access_token);
  if (account) headers["chatgpt-account-id"] = account;
  // The refresh token is never sent here, but no failure may quote it either.
  const secrets = credential.refresh_token ? [credential.refresh_token] : [];
  return { baseUrl: base, apiKey: credential.access_token, headers, secrets };
}

/** The ChatGPT account id the access token was issued for, when mc's entry does not store it. */
function accountClaim(token: string): string | null {
  try {
    const payload = token.split(".")[1] ?? "";
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    const auth = claims["https://api.openai.com/auth"] as Record<string, unknown> | undefined;
    const id = auth?.chatgpt_account_id;
    return typeof id === "string" && id ? id : null;
  } catch {
    return null;
  }
}

/** The login's renewal, its failure told as a model call's (`... token renewal`). */
function renew(login: CodexLogin): Promise<CodexCredential> {
  return login.renew().catch((error: unknown) => {
    throw renewalFailure(error);
  });
}

function renewalFailure(error: unknown): ProviderFailure {
  if (!(error instanceof RefreshFailure)) return failure("remote_unavailable", "token renewal");
  switch (error.reason) {
    case "authentication_rejected":
    case "rate_limited":
    case "remote_timeout":
    case "remote_unavailable":
      return failure(error.reason, "token renewal");
    default:
      return failure("provider_error", "token renewal");
  }
}

/**
 * The renewal's result, or null once the call is cancelled. The renewal itself runs on: the
 * provider may already have rotated the refresh token, and its answer must still be saved.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  work.catch(() => {});
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
