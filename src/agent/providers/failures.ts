import { type FailureCode, ProviderFailure } from "./provider.js";
import type { StreamFlags } from "./transport.js";

/**
 * From whatever an SDK call threw to a `ProviderFailure` with a fixed, safe message: never the
 * SDK's own text, which quotes the response body and may name the URL.
 */

type OpenAiModule = typeof import("openai");

export interface FailureContext {
  sdk: OpenAiModule;
  /** The idle watchdog fired: whatever the SDK made of the abort, it is `remote_timeout`. */
  idle: boolean;
  flags: StreamFlags;
}

const MESSAGES: Record<FailureCode, string> = {
  authentication_rejected: "The provider rejected the credentials.",
  rate_limited: "The provider is rate limiting requests.",
  remote_unavailable: "The provider could not be reached or ended the answer early.",
  remote_timeout: "The provider sent nothing for too long.",
  invalid_response: "The provider's answer was not a valid stream.",
  context_exceeded: "The conversation is too long for the model's context window.",
  provider_error: "The provider refused the request.",
};

export function failure(code: FailureCode, retryAfterMs: number | null = null): ProviderFailure {
  return new ProviderFailure(code, MESSAGES[code], retryAfterMs);
}

export function toProviderFailure(error: unknown, context: FailureContext): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  if (context.idle) return failure("remote_timeout");
  if (context.flags.malformed || error instanceof SyntaxError) return failure("invalid_response");
  const { APIError, APIConnectionError, APIConnectionTimeoutError } = context.sdk;
  if (error instanceof APIConnectionTimeoutError) return failure("remote_timeout");
  if (error instanceof APIConnectionError) return connectionFailure(error);
  if (error instanceof APIError) {
    if (typeof error.status === "number")
      return statusFailure(error.status, error.headers, context.flags.errorBody);
    // An `error` object inside the stream: classify it by what it says, like a status answer.
    return bodyFailure(error.error);
  }
  return connectionFailure(error);
}

/** Connect timeouts are `remote_timeout` (as for refresh); refused, reset or cut: unavailable. */
function connectionFailure(error: unknown): ProviderFailure {
  for (let cause = error, depth = 0; cause && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT")
      return failure("remote_timeout");
    cause = (cause as { cause?: unknown }).cause;
  }
  return failure("remote_unavailable");
}

function statusFailure(status: number, headers: Headers | undefined, body: string) {
  if (status === 401 || status === 403) return failure("authentication_rejected");
  if (status === 429) return failure("rate_limited", retryAfterMs(headers));
  if (status >= 500) return failure("remote_unavailable", retryAfterMs(headers));
  // 413: the request itself is too large, which only a shorter context fixes.
  if (status === 413 || mentionsContextLength(parsedBody(body))) return failure("context_exceeded");
  return failure("provider_error");
}

function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function bodyFailure(body: unknown): ProviderFailure {
  const code = (body as { code?: unknown } | undefined)?.code;
  if (code === 429 || code === "rate_limit_exceeded") return failure("rate_limited");
  if (typeof code === "number" && code >= 500) return failure("remote_unavailable");
  if (mentionsContextLength(body)) return failure("context_exceeded");
  return failure("provider_error");
}

/**
 * Servers word a too-long context differently: OpenAI's `context_length_exceeded` code, vLLM's
 * "maximum context length", llama.cpp's `exceed_context_size_error`, Ollama's and others' prose.
 */
const CONTEXT_WORDING =
  /context[_ ]length|context[_ ]window|context[_ ]size|maximum context|too many tokens|prompt is too long|exceeds? the (?:model'?s? )?(?:maximum|max) (?:number of )?tokens/i;

/** Reads the error body's usual fields (`error` object or string, or top-level ones). */
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

/** `retry-after-ms` (milliseconds), else `Retry-After` (seconds or an HTTP date); never negative. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Math.round(Number(ms)));
  const after = headers?.get("retry-after")?.trim();
  if (!after) return null;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
