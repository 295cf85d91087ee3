/**
 * The environment `shell` commands get: the child's own minus every provider credential, so a
 * command (or a model that writes one) cannot read or send the user's keys.
 */

import { PROVIDER_CREDENTIAL_VARIABLES } from "../../protocol/secret-handoff.js";

/**
 * Every credential variable the child knows: the standard ones and `configured` (each configured
 * provider's `api_key_env`). What `shellEnvironment` removes, and what a client's terminal blanks.
 */
export function credentialVariableNames(configured: readonly string[]): string[] {
  return [...new Set<string>([...PROVIDER_CREDENTIAL_VARIABLES, ...configured])];
}

/** `env` without `credentialVariables` (every configured `api_key_env`) and the standard ones. */
export function shellEnvironment(
  env: NodeJS.ProcessEnv,
  credentialVariables: readonly string[],
): NodeJS.ProcessEnv {
  const removed = new Set<string>(credentialVariableNames(credentialVariables));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !removed.has(name)));
}
