/**
 * The environment `shell` commands get: the child's own minus every provider credential, so a
 * command (or a model that writes one) cannot read or send the user's keys.
 */

import { PROVIDER_CREDENTIAL_VARIABLES } from "../../protocol/secret-handoff.js";

/** `env` without `credentialVariables` (every configured `api_key_env`) and the standard ones. */
export function shellEnvironment(
  env: NodeJS.ProcessEnv,
  credentialVariables: string[],
): NodeJS.ProcessEnv {
  const removed = new Set<string>([...PROVIDER_CREDENTIAL_VARIABLES, ...credentialVariables]);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !removed.has(name)));
}
