import type { NextStep } from "../protocol/recovery.js";
import type { CatalogNotice } from "../protocol/schemas/models.js";

/**
 * A next step (`errors.recovery`, docs/extensions.md) as a sentence naming the command to run.
 * One wording for every frontend: the CLI prints it, an editor shows it, a GUI puts it on a
 * button's label. The provider is named when the step is about one.
 */
export function adviceForStep(next: NextStep): string {
  const p = next.provider;
  switch (next.recovery) {
    case "run_setup":
      return 'Run "mc-agent setup": it finds your API keys, logins and local model servers, fetches a provider\'s models and sets your default model.';
    case "configure_authentication":
      return `Give ${p ?? "the model provider"} credentials: export its API key variable or log in with its own CLI ("mc-agent setup" shows what it finds), then restart the backend.`;
    case "refresh_catalog":
      return `Fetch ${p ? `${p}'s` : "the provider's"} models: run "mc-agent refresh ${p ?? "<provider>"}".`;
    case "enable_models_and_restart":
      return `Enable a model and make it the default: run "mc-agent models enable ${p ?? "<provider>"}/<model> --default" ("mc-agent models" lists them), then restart the backend.`;
  }
}

/**
 * A catalog notice in one sentence, with its next step when the notice carries one (and the
 * base contract's step otherwise: a refresh for a cache, the settings file for settings).
 */
export function explainNotice(notice: CatalogNotice): string {
  if (notice.code === "configuration_invalid") {
    const which = notice.settings ? `The ${notice.settings} settings file` : "A settings file";
    return `${which} is invalid and is ignored (built-in defaults are in use): fix it ("mc-agent doctor" shows where it is wrong) or ${lowerFirst(adviceForStep({ recovery: "run_setup", provider: null }))}`;
  }
  const what =
    notice.code === "catalog_missing"
      ? `No catalog of ${notice.provider}'s models has been fetched yet`
      : `${notice.provider}'s cached catalog is invalid`;
  const step = adviceForStep({
    recovery: notice.recovery ?? "refresh_catalog",
    provider: notice.provider,
  });
  return `${what}. ${step}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
