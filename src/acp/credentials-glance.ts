/**
 * Whether any provider has credentials, settled without reading a file where that can be:
 * `initialize`'s auth methods hang on it (initialize-answer.ts), and the full look (auth.ts
 * `anyCredentials`: the settings parsed, each provider's credential files read through their
 * schemas) needs zod, which the starter never loads. Both paths glance first, so the starter
 * answers with what the SDK's handler would.
 */
import { lstatSync, readFileSync } from "node:fs";
import { envCredential } from "../credentials/env-credential.js";
import { credentialPaths } from "../store/credential-paths.js";
import { globalSettingsPath, SETTINGS_BYTES } from "../store/settings-file.js";

/** A provider as the glance reads it: its id, type and key variable. */
export interface GlancedProvider {
  id: string;
  type: string;
  api_key_env: string | null;
}

interface Where {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * True or false when settled, undefined when only the full look can say. The providers are
 * `defaults` (the built-in ones as models/providers.ts resolves them for empty settings) plus
 * what MC_HOME's config.json configures (the project file configures no provider):
 * - true when a built-in provider has its key variable set (discoverCredential's first place,
 *   env-credential.ts, checked before any file) under every name config.json may give it: its
 *   default one, and the one config.json names when the file, read as JSON, names one (valid,
 *   the file's name is used; invalid, the file is ignored whole and the default is);
 * - false when no config.json exists, no built-in provider has its key set, and none of the
 *   credential files discoverCredential would read next exists (mc's auth.json, Codex's
 *   auth.json, Claude's credentials): with nothing configured no provider is keyless.
 * A path that cannot be looked at, or a config.json that cannot be read as JSON here, is left to
 * the full look.
 */
export function glanceCredentials(
  { home, env }: Where,
  defaults: readonly GlancedProvider[],
): boolean | undefined {
  const config = globalSettingsPath(home);
  const configured = absent(config) ? new Map<string, unknown>() : namedKeys(config);
  if (configured === undefined) return undefined;
  const keyed = (provider: GlancedProvider, id: string) => {
    const named = configured.get(id);
    const names = [provider.api_key_env, ...(typeof named === "string" ? [named] : [])];
    return names.every((name) => envCredential({ ...provider, api_key_env: name }, env) !== null);
  };
  if (defaults.some((provider) => keyed(provider, provider.id))) return true;
  if (!absent(config)) return undefined;
  const paths = credentialPaths(home, env);
  if (!absent(paths.mcAuth) || !absent(paths.codexAuth) || !absent(paths.claudeCredentials))
    return undefined;
  return false;
}

/**
 * The `api_key_env` config.json gives each provider, read as settings.ts reads the file (at
 * most SETTINGS_BYTES of strict UTF-8, then JSON.parse), without its schema: by provider id,
 * whatever the value is. Undefined when the file is no regular file, too large or no JSON.
 */
function namedKeys(path: string): Map<string, unknown> | undefined {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > SETTINGS_BYTES) return undefined;
    const raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(path)));
    const providers = (raw as { providers?: unknown } | null)?.providers;
    const named = new Map<string, unknown>();
    if (typeof providers !== "object" || providers === null) return named;
    for (const [id, entry] of Object.entries(providers))
      named.set(id, (entry as { api_key_env?: unknown } | null)?.api_key_env);
    return named;
  } catch {
    return undefined;
  }
}

/** Nothing at `path`, and nothing else wrong in looking: its folder exists or is missing too. */
function absent(path: string): boolean {
  try {
    lstatSync(path);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}
