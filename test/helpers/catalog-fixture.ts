import type { ModelChoice, ProviderStatus } from "../../src/protocol/schemas/models.js";

/** Canned catalog data for the scripted child (catalog.json / refresh.json). */
export function choice(
  provider: string,
  model: string,
  efforts = ["low", "medium", "high"],
): ModelChoice {
  return {
    id: `${provider}/${model}`,
    provider,
    model,
    name: model.toUpperCase(),
    efforts,
    default_effort: efforts.includes("medium") ? "medium" : null,
    selectable: true,
  };
}

export function providerStatus(
  provider: string,
  catalog_status: ProviderStatus["catalog_status"],
  authentication: ProviderStatus["authentication"],
  recovery: ProviderStatus["recovery"],
  relevant = true,
): ProviderStatus {
  return { provider, catalog_status, authentication, relevant, recovery };
}

export const CATALOG = {
  choices: [choice("demo", "demo-1"), choice("demo", "demo-2", [])],
  notices: [{ code: "catalog_missing", provider: "openai" }],
  providers: [
    providerStatus("demo", "available", "ready", "none"),
    providerStatus("openai", "missing_cache", "ready", "refresh_catalog"),
    providerStatus("anthropic", "missing_cache", "not_checked", "enable_models_and_restart", false),
  ],
};

export const REFRESH = {
  openai: {
    outcome: "refreshed",
    catalog_after: {
      choices: [...CATALOG.choices, choice("openai", "gpt-x")],
      providers: [
        providerStatus("demo", "available", "ready", "none"),
        providerStatus("openai", "available", "ready", "none"),
      ],
    },
  },
  slow: { outcome: "refreshed", delay_ms: 20_000 },
  limited: { outcome: "failed", reason: "rate_limited" },
};
