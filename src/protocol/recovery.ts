/**
 * `errors.recovery` (docs/extensions.md): the next step a first-run failure names. The seed's
 * provider recoveries (without `none`: an error or notice only carries a step when there is one)
 * plus `run_setup`, the `mc-agent setup` command. Pure decisions over wire values, so the child
 * (its errors) and the SDK (a frontend that checks before it asks) decide alike.
 */
export const NEXT_STEPS = [
  "configure_authentication",
  "refresh_catalog",
  "enable_models_and_restart",
  "run_setup",
] as const;
export type NextStepName = (typeof NEXT_STEPS)[number];

/** What an error's `recovery` and `provider` say, when negotiated. */
export interface NextStep {
  recovery: NextStepName;
  /** The provider the step is about, or null when it is about no single one. */
  provider: string | null;
}

/** The part of a catalog status read the decision looks at. */
interface CatalogView {
  choices: readonly { id: string; provider: string }[];
  providers: readonly {
    provider: string;
    catalog_status: string;
    relevant: boolean;
    recovery: "none" | Exclude<NextStepName, "run_setup">;
  }[];
}

/**
 * Why `model` (or, with null, "no model selected") is not a usable choice, first match wins:
 * 1. a model of a provider that is not configured                       -> run_setup
 * 2. its provider has a step of its own (credentials, cache, enabling)  -> that step
 * 3. its provider's cache is valid: the model is not enabled (or listed) -> enable_models_and_restart
 * with no model named:
 * 4. some choices exist: make one the default                            -> enable_models_and_restart
 * 5. a provider in use has a step of its own                             -> that step
 * 6. a provider has a valid cache but nothing of it is enabled           -> enable_models_and_restart
 * 7. nothing is set up (no settings, no cache, an ignored invalid file)  -> run_setup
 */
export function nextStepForModel(catalog: CatalogView, model: string | null): NextStep {
  if (model !== null) {
    const providerId = model.split("/")[0] ?? "";
    const status = catalog.providers.find((p) => p.provider === providerId);
    if (!status) return { recovery: "run_setup", provider: null };
    if (status.recovery !== "none") return { recovery: status.recovery, provider: providerId };
    if (status.catalog_status !== "available")
      return { recovery: "refresh_catalog", provider: providerId };
    return { recovery: "enable_models_and_restart", provider: providerId };
  }
  const first = catalog.choices[0];
  if (first) return { recovery: "enable_models_and_restart", provider: first.provider };
  const inUse = catalog.providers.find((p) => p.relevant && p.recovery !== "none");
  if (inUse && inUse.recovery !== "none")
    return { recovery: inUse.recovery, provider: inUse.provider };
  const cached = catalog.providers.find((p) => p.catalog_status === "available");
  if (cached) return { recovery: "enable_models_and_restart", provider: cached.provider };
  return { recovery: "run_setup", provider: null };
}
