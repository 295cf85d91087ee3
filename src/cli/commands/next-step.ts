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
      return `enable one of its cached models: "mc-agent models" lists them, "mc-agent models enable ${p}/<model>" enables one (the next mc-agent command reads it)`;
  }
}

/** The one command that gets a user from nothing to a working model (docs/cli.md, "setup"). */
export const RUN_SETUP =
  'run "mc-agent setup" (it finds your keys, logins and local servers, fetches the models and lets you pick one)';

/**
 * What to do when no model is selectable at all: `mc-agent setup`, then by hand the first in-use
 * provider's next step, or, when no provider is in use (a fresh MC_HOME), how to enable a model
 * in the first place.
 */
export function stepToFirstModel(providers: ProviderStatus[]): string {
  return `${RUN_SETUP}; or by hand, ${stepByHand(providers)}`;
}

function stepByHand(providers: ProviderStatus[]): string {
  const stuck = providers.find((p) => p.relevant && p.recovery !== "none");
  if (stuck) return nextStep(stuck) as string;
  // Refreshed but nothing enabled yet: the second step, not the first again.
  const cached = providers.find((p) => p.catalog_status === "available");
  if (cached)
    return `enable one of ${cached.provider}'s cached models with "mc-agent models enable ${cached.provider}/<model>" ("mc-agent models" lists them)`;
  return 'first fetch a provider\'s models with "mc-agent refresh <provider>" (openai, anthropic, codex, or a provider of your own in MC_HOME/config.json, with its credentials set up), then enable one with "mc-agent models enable <provider>/<model>" ("mc-agent models" lists what the refresh found)';
}
