import type { ProviderStatus } from "../../client/index.js";

/**
 * The exact next step for a provider's recovery, in terms of this CLI and the backend's
 * settings. Every mc-agent command starts a fresh backend child, so "restart the child" is
 * simply "run the next command".
 */
export function nextStep(status: ProviderStatus): string | null {
  const p = status.provider;
  switch (status.recovery) {
    case "none":
      return null;
    case "refresh_catalog":
      return `run "mc-agent refresh ${p}"`;
    case "configure_authentication":
      return `set up credentials for ${p} (its API key variable, or its entry in MC_HOME/auth.json), then run "mc-agent refresh ${p}"`;
    case "enable_models_and_restart":
      return `add "${p}/<model>" IDs to "enabled_models" in MC_HOME/config.json; the next mc-agent command starts a fresh backend that reads it`;
  }
}
