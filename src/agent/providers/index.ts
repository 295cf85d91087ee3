import { createAnthropicProvider } from "./anthropic.js";
import { createCodexProvider } from "./codex.js";
import { failure } from "./failures.js";
import type { ModelProvider } from "./provider.js";
import { createResponsesProvider, type ProviderOptions } from "./responses.js";

/** The wire format of a provider, by its type (one file per format beside this one). */
export function createModelProvider(options: ProviderOptions): ModelProvider {
  switch (options.provider.type) {
    case "openai":
      return createResponsesProvider(options);
    case "codex":
      return createCodexProvider(options);
    case "anthropic":
      return createAnthropicProvider(options);
    case "openai-compatible":
      // The Chat Completions provider lands from its own branch; the lead merges the cases.
      return {
        // biome-ignore lint/correctness/useYield: fails before any event
        async *stream() {
          throw failure("provider_error", "openai-compatible is not in this build");
        },
      };
  }
}
