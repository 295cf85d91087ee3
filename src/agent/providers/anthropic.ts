import { parseJson } from "../../protocol/well-formed.js";
import { messagesBody } from "./anthropic-format.js";
import { MessagesReader } from "./anthropic-reader.js";
import { failure, mentionsContextLength, saying, thrownFailure } from "./failures.js";
import type {
  ModelProvider,
  ProviderFailure,
  ProviderOptions,
  StreamEvent,
  Usage,
} from "./provider.js";
import { anthropicClient, CallGuard, loadAnthropic } from "./transport.js";

/** The OAuth beta Claude's own tokens need, exactly as the catalog refresh sends it. */
const OAUTH_BETA = "oauth-2025-04-20";
/** A turn the API pauses (long server-side work) is resumed at most this often per call. */
const MAX_PAUSE_CONTINUATIONS = 8;

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
      const sdk = await loadAnthropic();
      const endpoint = {
        baseUrl: provider.base_url,
        ...(credential.kind === "api_key"
          ? { apiKey: credential.key, authToken: null }
          : {
              apiKey: null,
              authToken: credential.token,
              headers: { "anthropic-beta": OAUTH_BETA },
            }),
      };
      const body = messagesBody(request, provider);
      const asked = [...body.messages];
      const reader = new MessagesReader(provider.type);
      let usage: Usage | null = null;
      for (let segment = 0; ; segment += 1) {
        const guard = new CallGuard(bounds, request.signal);
        try {
          const client = await anthropicClient(guard, endpoint);
          const messages = guard.events(() =>
            client.messages.create(body, { signal: guard.signal }).asResponse(),
          );
          reader.startSegment();
          for await (const { event, data } of messages) {
            // As the SDK reads the stream: unnamed events, `ping` and empty data are skipped.
            if (event === undefined || event === "ping") continue;
            if (event === "error") {
              const body = parsedOrText(data);
              throw saying(inStreamFailure(body), body);
            }
            if (data === "") continue;
            yield* reader.read(parseJson(data) as { type: string });
            if (reader.stopped) break;
          }
          if (guard.cancelled) return;
          if (!reader.stopped) throw failure("invalid_response");
        } catch (error) {
          if (guard.cancelled) return;
          throw thrownFailure(error, guard, sdk);
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

/**
 * An `error` event inside the stream, by the type the API names (the message is matched for a
 * too-long prompt, never repeated).
 */
function inStreamFailure(body: unknown): ProviderFailure {
  const inner = (body as { error?: { type?: unknown } } | null)?.error;
  const type = typeof inner?.type === "string" ? inner.type : null;
  if (mentionsContextLength(inner)) return failure("context_exceeded");
  if (type === "overloaded_error" || type === "api_error") return failure("remote_unavailable");
  if (type === "rate_limit_error") return failure("rate_limited");
  if (type === "request_too_large") return failure("context_exceeded");
  return failure("provider_error", type && /^[a-z_]{1,64}$/.test(type) ? type : undefined);
}

function parsedOrText(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
