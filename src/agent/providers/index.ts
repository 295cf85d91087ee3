import { createAnthropicProvider } from "./anthropic.js";
import { ChatCompletionsProvider } from "./chat-completions.js";
import { createCodexProvider } from "./codex.js";
import {
  type FailureCode,
  type ModelProvider,
  ProviderFailure,
  type ProviderOptions,
} from "./provider.js";
import { createResponsesProvider } from "./responses.js";

/**
 * The wire format of a provider, by its type (one file per format beside this one); a failure's
 * `providerMessage` never repeats the call's own credential, whatever its shape (the transport's
 * guard knows what the call sends, failures.ts `thrownFailure` takes it out).
 */
export function createModelProvider(options: ProviderOptions): ModelProvider {
  switch (options.provider.type) {
    case "openai-compatible":
      return chatCompletions(options);
    case "openai":
      return createResponsesProvider(options);
    case "codex":
      return createCodexProvider(options);
    case "anthropic":
      return createAnthropicProvider(options);
  }
}

/** An API key as a bearer, or keyless; nothing else authenticates a Chat Completions call. */
function chatCompletions({ provider, credential, bounds }: ProviderOptions): ModelProvider {
  if (credential?.kind !== "api_key" && credential?.kind !== "keyless")
    return failing("authentication_rejected", "No usable credentials for this provider.");
  return new ChatCompletionsProvider({
    baseUrl: provider.base_url,
    apiKey: credential.kind === "api_key" ? credential.key : null,
    bounds,
    owner: { type: provider.type, id: provider.id },
  });
}

/** A provider whose every call fails at once, so the engine reports it like any failure. */
function failing(code: FailureCode, message: string): ModelProvider {
  return {
    // biome-ignore lint/correctness/useYield: it fails before the first event.
    async *stream() {
      throw new ProviderFailure(code, message);
    },
  };
}
