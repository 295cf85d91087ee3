import type { Credential } from "../../models/auth.js";
import type { Provider } from "../../models/providers.js";
import { createAnthropicProvider } from "./anthropic.js";
import { ChatCompletionsProvider } from "./chat-completions.js";
import { createCodexProvider } from "./codex.js";
import {
  type FailureCode,
  type ModelProvider,
  ProviderFailure,
  type TransportBounds,
} from "./provider.js";
import { withoutSecrets } from "./provider-text.js";
import { createResponsesProvider } from "./responses.js";

export interface ProviderOptions {
  provider: Provider;
  /** What credential discovery found; `keyless` for a custom provider without a key. */
  credential: Credential | null;
  bounds: TransportBounds;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where a provider reports what it could not do on the side (renewed tokens not saved). */
  log?: (level: "warn", message: string) => void;
}

/**
 * The wire format of a provider, by its type (one file per format beside this one); a failure's
 * `providerMessage` never repeats the call's own credential, whatever its shape.
 */
export function createModelProvider(options: ProviderOptions): ModelProvider {
  return withoutCredential(wireFormat(options), secretsOf(options.credential));
}

function wireFormat(options: ProviderOptions): ModelProvider {
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

/** The credential's secret values (a key or tokens): what a provider's text must never echo. */
function secretsOf(credential: Credential | null): string[] {
  if (!credential) return [];
  switch (credential.kind) {
    case "api_key":
      return [credential.key];
    case "oauth_bearer":
      return [credential.token];
    case "codex":
      return [credential.access_token, credential.refresh_token ?? ""];
    case "keyless":
      return [];
  }
}

/**
 * Pattern redaction (provider-text.ts) catches what looks like a key; this catches the call's
 * own key even when it does not (a short or plain word a local server was given).
 */
function withoutCredential(provider: ModelProvider, secrets: string[]): ModelProvider {
  const known = secrets.filter((secret) => secret.length >= 4);
  if (known.length === 0) return provider;
  return {
    async *stream(request) {
      try {
        yield* provider.stream(request);
      } catch (error) {
        if (error instanceof ProviderFailure && error.providerMessage !== null)
          error.providerMessage = withoutSecrets(error.providerMessage, known);
        throw error;
      }
    },
  };
}
