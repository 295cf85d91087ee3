import { resolveProviders } from "../models/providers.js";
import type { LoadedSettings } from "../store/settings.js";
import type { GlancedProvider } from "./credentials-glance.js";

/** What loadSettings gives when neither settings file exists. */
const NOTHING_CONFIGURED: LoadedSettings = {
  global: {},
  project: {},
  preferred: { model: null, effort: null },
  subagentModel: null,
  hooks: { global: null, project: null },
  invalid: { global: false, project: false },
  files: { global: { state: "absent" }, project: { state: "absent" } },
};

/**
 * The providers with nothing configured, as the credential glance reads them
 * (credentials-glance.ts): resolved by the engine's own resolveProviders. The SDK's path asks
 * here; the starter has the same list inlined at build time (scripts/bundle.js, starter-facts.ts).
 */
export function defaultProviders(): GlancedProvider[] {
  return resolveProviders(NOTHING_CONFIGURED).map(({ id, type, api_key_env }) => ({
    id,
    type,
    api_key_env,
  }));
}
