import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { toChatMessages, toChatTools } from "./chat-messages.js";
import { ChatStreamAssembler } from "./chat-stream.js";
import { failure, toProviderFailure } from "./failures.js";
import {
  type ModelProvider,
  type ModelRequest,
  ProviderFailure,
  type StreamEvent,
  type TransportBounds,
} from "./provider.js";
import { IdleWatchdog, loadOpenAi, newStreamFlags, openAiClient } from "./transport.js";

export interface ChatCompletionsOptions {
  /** The provider's `base_url` (e.g. `http://127.0.0.1:11434/v1`); `/chat/completions` is added. */
  baseUrl: string;
  /** null: keyless (local servers); no `Authorization` header at all. */
  apiKey: string | null;
  bounds: TransportBounds;
}

/**
 * The custom `openai-compatible` provider: one streamed Chat Completions call per model call,
 * through the official SDK. Text and reasoning stream as they come; tool calls are assembled from
 * their fragments and emitted whole at the end, before the usage and `done`.
 */
export class ChatCompletionsProvider implements ModelProvider {
  constructor(private readonly options: ChatCompletionsOptions) {}

  async *stream(request: ModelRequest): AsyncGenerator<StreamEvent> {
    if (request.signal.aborted) return;
    const baseUrl = usableBaseUrl(this.options.baseUrl);
    const sdk = await loadOpenAi();
    const watchdog = new IdleWatchdog(this.options.bounds.idleMs);
    const flags = newStreamFlags();
    let iterator: AsyncIterator<unknown> | null = null;
    try {
      const client = await openAiClient({
        baseUrl,
        apiKey: this.options.apiKey,
        bounds: this.options.bounds,
        watchdog,
        flags,
      });
      watchdog.arm();
      const stream = await client.chat.completions.create(requestBody(request), {
        signal: AbortSignal.any([request.signal, watchdog.signal]),
        maxRetries: 0,
      });
      iterator = stream[Symbol.asyncIterator]();
      const assembler = new ChatStreamAssembler();
      for (;;) {
        // The idle bound runs only while we wait for the remote, never while the consumer works.
        watchdog.arm();
        const next = await iterator.next();
        watchdog.disarm();
        if (next.done || request.signal.aborted) break;
        yield* assembler.accept(next.value);
      }
      // The SDK ends a stream quietly when it is aborted: say why it ended.
      if (request.signal.aborted) return;
      if (watchdog.fired) throw failure("remote_timeout");
      yield* assembler.finishEvents();
    } catch (error) {
      if (request.signal.aborted) return;
      throw toProviderFailure(error, { sdk, idle: watchdog.fired, flags });
    } finally {
      watchdog.disarm();
      // Unfinished (an error, or the consumer stopped early): the SDK aborts the request.
      await iterator?.return?.().catch(() => {});
    }
  }
}

function requestBody(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.system, request.context),
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
