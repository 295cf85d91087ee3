import { PROVIDER_CREDENTIAL_VARIABLES, withHandedOver } from "../protocol/secret-handoff.js";

/**
 * The environment the child works with: its own plus the credentials the launcher handed over
 * (src/protocol/secret-handoff.ts), held in memory only. The standard credential variables are
 * then removed from `process.env`, so that nothing started later in this process (worker
 * threads, commands, any library spawning a helper) inherits them; the configured `api_key_env`
 * names follow once the settings are read (`forgetVariables`). This cannot change what
 * /proc/<pid>/environ shows: only the launcher keeps a key out of that (docs/tools.md).
 */
export function childEnvironment(handedOver: string | null): NodeJS.ProcessEnv {
  const env = withHandedOver(process.env, handedOver);
  forgetVariables(PROVIDER_CREDENTIAL_VARIABLES);
  return env;
}

/** Removes `names` from `process.env` (the copy `childEnvironment` returned keeps them). */
export function forgetVariables(names: readonly string[]): void {
  for (const name of names) delete process.env[name];
}
