import type { CallGuard } from "./http-transport.js";
import { type FailureCode, ProviderFailure } from "./provider.js";

/**
 * Failure mapping shared by every SDK-based provider. Messages are fixed sentences per code (an
 * HTTP status at most): never the URL, a header, the body or the provider's own message.
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

/** What an HTTP error status means, before the body refines it. */
export function statusFailure(status: number, headers: Headers | undefined): ProviderFailure {
  if (status === 401 || status === 403) return new HttpFailure("authentication_rejected", status);
  if (status === 429) return new HttpFailure("rate_limited", status, retryAfterMs(headers));
  if (status >= 500) return new HttpFailure("remote_unavailable", status, retryAfterMs(headers));
  if (status === 413) return new HttpFailure("context_exceeded", status);
  return new HttpFailure("provider_error", status);
}

/**
 * `retry-after-ms` (milliseconds), else `Retry-After` in seconds or as an HTTP date; null when
 * absent or unreadable. The engine caps what it honours.
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = headers?.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers?.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The failure for anything a call threw that is not already a `ProviderFailure`: the transport's
 * own record comes first (a timeout, a reset), then an HTTP status, then a stream the SDK could
 * not parse.
 */
export function thrownFailure(
  error: unknown,
  guard: CallGuard,
  fromApiError: (error: unknown) => ProviderFailure | null,
): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  if (guard.fault === "timeout" || guard.fault === "connect_timeout")
    return failure("remote_timeout");
  if (guard.fault === "network") return failure("remote_unavailable");
  return fromApiError(error) ?? failure("invalid_response");
}
