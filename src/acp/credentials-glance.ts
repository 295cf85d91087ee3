/**
 * Whether any provider has credentials, settled without reading a file where that can be:
 * `initialize`'s auth methods hang on it (initialize-answer.ts), and the full look (auth.ts
 * `anyCredentials`: the settings parsed, each provider's credential files read through their
 * schemas) needs zod, which the starter never loads. Both paths glance first, so the starter
 * answers with what the SDK's handler would.
 */
import { lstatSync } from "node:fs";
import { envCredential } from "../credentials/env-credential.js";
import { credentialPaths } from "../store/credential-paths.js";
import { globalSettingsPath, projectSettingsPath } from "../store/settings-paths.js";

/** A provider as the glance reads it: its type and key variable. */
export interface GlancedProvider {
  type: string;
  api_key_env: string | null;
}

interface Where {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * True or false when settled, undefined when only the full look can say. Settled only when
 * neither settings file exists (nothing configured: the providers are `defaults`, the built-in
 * ones as models/providers.ts resolves them for empty settings), then:
 * - true when one of them has its key variable set: discoverCredential's first place
 *   (env-credential.ts), checked before any file;
 * - false when none has, and none of the credential files it would read next exists (mc's
 *   auth.json, Codex's auth.json, Claude's credentials): with nothing configured no provider is
 *   keyless, so discoverCredential finds nothing for any of them.
 * A path that cannot be looked at (anything but "no such file") is left to the full look.
 */
export function glanceCredentials(
  { cwd, home, env }: Where,
  defaults: readonly GlancedProvider[],
): boolean | undefined {
  if (!absent(globalSettingsPath(home)) || !absent(projectSettingsPath(cwd))) return undefined;
  if (defaults.some((provider) => envCredential(provider, env) !== null)) return true;
  const paths = credentialPaths(home, env);
  if (!absent(paths.mcAuth) || !absent(paths.codexAuth) || !absent(paths.claudeCredentials))
    return undefined;
  return false;
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
