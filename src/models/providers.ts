import type { ProviderAccess } from "../credentials/discovery.js";
import { providerFingerprint } from "../store/catalog-cache.js";
import { BUILT_IN_PROVIDERS, type LoadedSettings } from "../store/settings.js";

/**
 * A provider as the child uses it: settings over built-in defaults. Its id, type, key variable
 * and token URL are what the credentials room reads (`ProviderAccess`).
 */
export interface Provider extends ProviderAccess {
  base_url: string;
  fingerprint: string;
}

export const DEFAULT_MODELS_DEV_URL = "https://models.dev/api.json";

const BUILT_IN_DEFAULTS: Record<
  (typeof BUILT_IN_PROVIDERS)[number],
  Omit<Provider, "id" | "fingerprint">
> = {
  openai: {
    type: "openai",
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    token_url: null,
  },
  anthropic: {
    type: "anthropic",
    base_url: "https://api.anthropic.com",
    api_key_env: "ANTHROPIC_API_KEY",
    token_url: null,
  },
  codex: {
    type: "codex",
    base_url: "https://chatgpt.com/backend-api/codex",
    api_key_env: null,
    token_url: "https://auth.openai.com/oauth/token",
  },
};

/** Built-ins first (openai, anthropic, codex), then custom providers by name. */
export function resolveProviders(settings: LoadedSettings): Provider[] {
  const configured = settings.global.providers ?? {};
  const builtIns = BUILT_IN_PROVIDERS.map((id) => {
    const base = BUILT_IN_DEFAULTS[id];
    const override = configured[id] ?? {};
    return withFingerprint({
      id,
      type: base.type,
      base_url: override.base_url ?? base.base_url,
      api_key_env: override.api_key_env ?? base.api_key_env,
      token_url: override.token_url ?? base.token_url,
    });
  });
  const builtInNames: readonly string[] = BUILT_IN_PROVIDERS;
  const custom = Object.keys(configured)
    .filter((id) => !builtInNames.includes(id))
    .sort()
    .map((id) => {
      const entry = configured[id] ?? {};
      return withFingerprint({
        id,
        type: "openai-compatible" as const,
        base_url: entry.base_url ?? "",
        api_key_env: entry.api_key_env ?? null,
        token_url: null,
      });
    });
  return [...builtIns, ...custom];
}

function withFingerprint(provider: Omit<Provider, "fingerprint">): Provider {
  return { ...provider, fingerprint: providerFingerprint(provider) };
}

/** `"demo/demo-1"` -> `["demo", "demo-1"]`; the provider is everything before the first slash. */
export function splitModelId(id: string): [string, string] | null {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return null;
  return [id.slice(0, slash), id.slice(slash + 1)];
}
