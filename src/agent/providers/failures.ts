import { type FailureCode, ProviderFailure } from "./provider.js";
import { providerText, withoutSecrets } from "./provider-text.js";
import type { CallGuard } from "./transport.js";

/**
 * From whatever a model call threw to a `ProviderFailure`, for every provider. Messages are fixed
 * sentences per code (an HTTP status or a provider's error code at most): never the SDK's own
 * text, which quotes the response body and may name the URL, nor a header or the body. The
 * provider's own sentence goes apart, as `providerMessage`, only through `providerText`
 * (bounded, with URLs, paths and credentials redacted).
 */

const MESSAGES: Record<FailureCode, string> = {
  authentication_rejected: "The provider rejected the credentials.",
  remote_unavailable: "The provider is unavailable.",
  remote_timeout: "The provider did not answer in time.",
  rate_limited: "The provider is rate limiting requests.",
  context_exceeded: "The conversation is too long for the model's context window.",
  invalid_response: "The provider's answer could not be understood.",
  provider_error: "The provider refused the request.",
};

export function failure(code: FailureCode, detail?: string, retryAfterMs: number | null = null) {
  const message = detail ? `${MESSAGES[code]} (${detail})` : MESSAGES[code];
  return new ProviderFailure(code, message, retryAfterMs);
}

/** A failure that came with an HTTP status (Codex renews its token on a 401). */
export class HttpFailure extends ProviderFailure {
  constructor(
    code: FailureCode,
    readonly status: number,
    retryAfter: number | null = null,
  ) {
    super(code, `${MESSAGES[code]} (HTTP ${status})`, retryAfter);
  }
}

/**
 * What an HTTP error status means; for a 4xx the body (as far as it was read) refines it. 413:
 * the request itself is too large, which only a shorter context fixes.
 */
function statusFailure(status: number, headers: Headers | undefined, body: string) {
  return saying(statusCodeFailure(status, headers, body), body);
}

function statusCodeFailure(status: number, headers: Headers | undefined, body: string) {
  if (status === 401 || status === 403) return new HttpFailure("authentication_rejected", status);
  if (status === 429) return new HttpFailure("rate_limited", status, retryAfterMs(headers));
  if (status >= 500) return new HttpFailure("remote_unavailable", status, retryAfterMs(headers));
  if (status === 413 || mentionsContextLength(parsedBody(body)))
    return new HttpFailure("context_exceeded", status);
  return new HttpFailure("provider_error", status);
}

/** `failure` with what the provider said about it (an error body or in-stream error object). */
export function saying<T extends ProviderFailure>(failure: T, body: unknown): T {
  failure.providerMessage = providerText(body);
  return failure;
}

function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Servers word a too-long context differently: OpenAI's `context_length_exceeded` code, vLLM's
 * "maximum context length", llama.cpp's `exceed_context_size_error`, Anthropic's "prompt is too
 * long" and "exceed context limit", Ollama's and others' prose.
 */
const CONTEXT_WORDING =
  /context[_ ]length|context[_ ]window|context[_ ]size|context limit|maximum context|too many tokens|prompt is too long|exceeds? the (?:model'?s? )?(?:maximum|max) (?:number of )?tokens/i;

/** Reads an error body's usual fields (`error` object or string, or top-level ones). */
export function mentionsContextLength(body: unknown): boolean {
  return errorTexts(body).some((text) => CONTEXT_WORDING.test(text));
}

function errorTexts(body: unknown, depth = 0): string[] {
  if (typeof body === "string") return [body];
  if (typeof body !== "object" || body === null || depth > 2) return [];
  const record = body as Record<string, unknown>;
  return ["code", "type", "message", "detail", "error"].flatMap((key) =>
    errorTexts(record[key], depth + 1),
  );
}

/**
 * `retry-after-ms` (milliseconds), else `Retry-After` in seconds or as an HTTP date; null when
 * absent or unreadable (an unreadable `retry-after-ms` falls back to `Retry-After`). Never
 * negative; the engine caps what it honours.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = headers?.get("retry-after-ms")?.trim();
  if (ms && DECIMAL.test(ms)) return Math.round(Number(ms));
  const value = headers?.get("retry-after")?.trim();
  if (!value) return null;
  if (DECIMAL.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
const DECIMAL = /^\d+(\.\d+)?$/;

/** The error classes both SDKs export (same names, same fields). */
interface SdkErrors {
  APIError: abstract new (
    ...args: never[]
  ) => { status?: number | undefined; headers?: Headers | undefined; error?: unknown };
  APIConnectionError: abstract new (...args: never[]) => unknown;
}

/**
 * The failure for anything a call threw, its one way out (every provider's call ends in a
 * `catch` that calls this, so an error the API sent inside the stream, thrown by its reader as a
 * `ProviderFailure`, passes here too): the transport's own record comes first (a timeout, a
 * reset, a malformed line), then an SDK error with an HTTP status (mapped by `statusFailure`).
 * Anything else is a stream that could not be read (a body that is not JSON where an event's data
 * must be). The provider's sentence loses the call's own credentials here (`withoutCredentials`).
 */
export function thrownFailure(error: unknown, guard: CallGuard, sdk: SdkErrors): ProviderFailure {
  return withoutCredentials(classified(error, guard, sdk), guard.secrets);
}

function classified(error: unknown, guard: CallGuard, sdk: SdkErrors): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  if (guard.fault === "timeout" || guard.fault === "connect_timeout")
    return failure("remote_timeout");
  if (guard.fault === "network") return failure("remote_unavailable");
  if (guard.fault === "malformed") return failure("invalid_response");
  // The SDK saw the connection fail where the transport recorded nothing (it never got to it).
  if (error instanceof sdk.APIConnectionError) return failure("remote_unavailable");
  if (error instanceof sdk.APIError && typeof error.status === "number")
    return statusFailure(error.status, error.headers, guard.errorBody);
  return failure("invalid_response");
}

/**
 * Pattern redaction (provider-text.ts) catches what looks like a key; this catches the call's
 * own key even when it does not (a short or plain word a local server was given). Done once, on
 * the failure, instead of around every stream: wrapping each keyed stream in one more async
 * generator cost every event of every turn a step for what only a failure needs.
 */
function withoutCredentials(failure: ProviderFailure, secrets: readonly string[]): ProviderFailure {
  const known = secrets.filter((secret) => secret.length >= 4);
  if (known.length > 0 && failure.providerMessage !== null)
    failure.providerMessage = withoutSecrets(failure.providerMessage, known);
  return failure;
}
