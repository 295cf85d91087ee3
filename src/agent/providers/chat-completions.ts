import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { parseJson } from "../../protocol/well-formed.js";
import { toChatMessages, toChatTools } from "./chat-messages.js";
import { ChatStreamAssembler } from "./chat-stream.js";
import { failure, mentionsContextLength, saying, thrownFailure } from "./failures.js";
import {
  type ModelProvider,
  type ModelRequest,
  ProviderFailure,
  type StreamEvent,
  type TransportBounds,
} from "./provider.js";
import { CallGuard, loadOpenAi, openAiClient } from "./transport.js";

interface ChatCompletionsOptions {
  /** The provider's `base_url` (e.g. `http://127.0.0.1:11434/v1`); `/chat/completions` is added. */
  baseUrl: string;
  /** null: keyless (local servers); no `Authorization` header at all. */
  apiKey: string | null;
  bounds: TransportBounds;
  /** The provider's type and ID: they tag the reasoning kept for replay (chat-reasoning.ts). */
  owner?: { type: string; id: string };
}

/**
 * The custom `openai-compatible` provider: one streamed Chat Completions call per model call,
 * through the official SDK. Text and reasoning stream as they come; tool calls are assembled from
 * their fragments and emitted whole at the end, before the usage and `done`.
 */
export class ChatCompletionsProvider implements ModelProvider {
  private readonly owner: { type: string; id: string };
  constructor(private readonly options: ChatCompletionsOptions) {
    this.owner = options.owner ?? { type: "openai-compatible", id: "" };
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    if (request.signal.aborted) return;
    const baseUrl = usableBaseUrl(this.options.baseUrl);
    const sdk = await loadOpenAi();
    const guard = new CallGuard(this.options.bounds, request.signal);
    try {
      const client = await openAiClient(guard, { baseUrl, apiKey: this.options.apiKey });
      const assembler = new ChatStreamAssembler(this.owner.type);
      const messages = guard.events(() =>
        client.chat.completions
          .create(requestBody(request, this.owner), {
            signal: guard.signal,
          })
          .asResponse(),
      );
      let done = false;
      for await (const { data } of messages) {
        // What follows `[DONE]` is read to the end (the connection stays reusable) and ignored.
        if (done || data.startsWith("[DONE]")) {
          done = true;
          continue;
        }
        const chunk = parseJson(data) as { error?: unknown } | null;
        if (chunk?.error) throw saying(errorObjectFailure(chunk.error), chunk);
        yield* assembler.accept(chunk);
      }
      if (guard.cancelled) return;
      yield* assembler.finishEvents();
    } catch (error) {
      if (guard.cancelled) return;
      throw thrownFailure(error, guard, sdk);
    } finally {
      guard.close();
    }
  }
}

/** An `error` object inside the stream: classified by what it says, like a status answer. */
function errorObjectFailure(body: unknown): ProviderFailure {
  const code = (body as { code?: unknown } | undefined)?.code;
  if (code === 429 || code === "rate_limit_exceeded") return failure("rate_limited");
  if (typeof code === "number" && code >= 500) return failure("remote_unavailable");
  if (mentionsContextLength(body)) return failure("context_exceeded");
  return failure("provider_error");
}

function requestBody(
  request: ModelRequest,
  owner: { type: string; id: string },
): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.system, request.context, { ...owner, model: request.model }),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = toChatTools(request.tools);
  if (request.effort !== null)
    body.reasoning_effort =
      request.effort as ChatCompletionCreateParamsStreaming["reasoning_effort"];
  return body;
}

function usableBaseUrl(raw: string): string {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  if (url?.protocol !== "http:" && url?.protocol !== "https:")
    throw new ProviderFailure("provider_error", "The provider's base URL is not a usable URL.");
  return raw.replace(/\/+$/, "");
}
