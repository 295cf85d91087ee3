import { messagesBody } from "./anthropic-format.js";
import { MessagesReader } from "./anthropic-reader.js";
import { failure, statusFailure, thrownFailure } from "./http-failures.js";
import { CallGuard, SDK_TIMEOUT_MS } from "./http-transport.js";
import type { ProviderOptions } from "./index.js";
import type { ModelProvider, ProviderFailure, StreamEvent, Usage } from "./provider.js";

/** The OAuth beta Claude's own tokens need, exactly as the catalog refresh sends it. */
export const OAUTH_BETA = "oauth-2025-04-20";
/** A turn the API pauses (long server-side work) is resumed at most this often per call. */
export const MAX_PAUSE_CONTINUATIONS = 8;

type Sdk = typeof import("@anthropic-ai/sdk");
let sdk: Promise<Sdk> | null = null;
function loadAnthropic(): Promise<Sdk> {
  sdk ??= import("@anthropic-ai/sdk");
  return sdk;
}

/**
 * `anthropic`: the Messages API streaming, with an API key (`x-api-key`) or Claude's OAuth token
 * (`Authorization: Bearer` plus the OAuth beta). A `pause_turn` stop is continued within the
 * same call by sending the partial assistant content back; the engine sees one call.
 */
export function createAnthropicProvider(options: ProviderOptions): ModelProvider {
  const { provider, credential, bounds } = options;
  return {
    async *stream(request) {
      if (credential?.kind !== "api_key" && credential?.kind !== "oauth_bearer")
        throw failure("authentication_rejected", "no API key or Claude login");
      const mod = await loadAnthropic();
      const auth =
        credential.kind === "api_key"
          ? { apiKey: credential.key, authToken: null }
          : { apiKey: null, authToken: credential.token };
      const body = messagesBody(request, provider);
      const asked = [...body.messages];
      const reader = new MessagesReader(provider.type);
      let usage: Usage | null = null;
      for (let segment = 0; ; segment += 1) {
        const guard = new CallGuard(bounds, request.signal);
        const client = new mod.Anthropic({
          ...auth,
          baseURL: provider.base_url,
          maxRetries: 0,
          timeout: SDK_TIMEOUT_MS,
          fetch: guard.fetch,
          logLevel: "off",
          defaultHeaders:
            credential.kind === "oauth_bearer" ? { "anthropic-beta": OAUTH_BETA } : {},
        });
        try {
          const stream = await client.messages.create(body, { signal: guard.controller.signal });
          reader.startSegment();
          for await (const event of stream) {
            for (const out of reader.read(event)) {
              guard.pause();
              yield out;
              guard.resume();
            }
            if (reader.stopped) break;
          }
          if (guard.cancelled) return;
          if (!reader.stopped) throw thrownFailure(new Error("ended"), guard, () => null);
        } catch (error) {
          if (guard.cancelled) return;
          throw thrownFailure(error, guard, (e) => anthropicFailure(e, mod));
        } finally {
          guard.close();
        }
        usage = reader.mergedUsage(usage);
        if (reader.stopReason !== "pause_turn") {
          yield* finish(reader, usage);
          return;
        }
        if (segment + 1 > MAX_PAUSE_CONTINUATIONS)
          throw failure("provider_error", "the model paused too often");
        // The paused content goes back as the last assistant message; the model picks up there.
        body.messages = [...asked, { role: "assistant", content: reader.contentSoFar() }];
      }
    },
  };
}

function* finish(reader: MessagesReader, usage: Usage | null): Generator<StreamEvent> {
  const stop = reader.stopReason;
  if (stop === "model_context_window_exceeded") throw failure("context_exceeded");
  if (usage) yield { type: "usage", usage };
  const mapped =
    stop === "tool_use" || stop === "max_tokens" || stop === "refusal"
      ? stop
      : reader.sawToolCall
        ? "tool_use"
        : "end_turn";
  yield { type: "done", stop: mapped, provider_state: reader.state() };
}

/** Error types the API names, in HTTP bodies and in-stream `error` events alike. */
export function anthropicFailure(error: unknown, mod: Sdk): ProviderFailure | null {
  if (!(error instanceof mod.APIError) || error instanceof mod.APIConnectionError) return null;
  const body = (error.error ?? {}) as { error?: { type?: unknown; message?: unknown } };
  const type = typeof body.error?.type === "string" ? body.error.type : null;
  const message = typeof body.error?.message === "string" ? body.error.message : "";
  if (type === "invalid_request_error" && TOO_LONG.test(message))
    return failure("context_exceeded");
  if (error.status !== undefined) return statusFailure(error.status, error.headers);
  // An in-stream `error` event: no status, only the type.
  if (type === "overloaded_error" || type === "api_error") return failure("remote_unavailable");
  if (type === "rate_limit_error") return failure("rate_limited");
  if (type === "request_too_large") return failure("context_exceeded");
  return failure("provider_error", type && /^[a-z_]{1,64}$/.test(type) ? type : undefined);
}

/** How the API words a context that does not fit (the message is matched, never repeated). */
const TOO_LONG = /prompt is too long|exceed context limit|context window/i;
