import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  encodeSecrets,
  PROVIDER_CREDENTIAL_VARIABLES,
  SECRETS_FD_VARIABLE,
  VARIABLE_NAME,
} from "../protocol/secret-handoff.js";

type Env = Record<string, string | undefined>;

/** Settings files larger than this hold no names for us (the child ignores them as invalid). */
const CONFIG_BYTES = 1_048_576;

/**
 * What this package's own child is spawned with: `env` without the provider credentials (the
 * standard variables and each `api_key_env` of the child's MC_HOME/config.json), and those as
 * the text the child reads from its fd 3 (null when there are none). As bin/mc-agent.js's
 * launcher does for a frontend that runs the command: the child's start-up environment, readable
 * by any same-user process, never holds a key.
 */
export async function splitSecrets(
  env: Env,
  cwd: string,
): Promise<{ env: Env; handedOver: string | null }> {
  const names = new Set<string>([
    ...PROVIDER_CREDENTIAL_VARIABLES,
    ...(await configured(env, cwd)),
  ]);
  const clean: Env = {};
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name === SECRETS_FD_VARIABLE) continue;
    if (names.has(name)) secrets[name] = value;
    else clean[name] = value;
  }
  if (Object.keys(secrets).length === 0) return { env: clean, handedOver: null };
  return { env: { ...clean, [SECRETS_FD_VARIABLE]: "3" }, handedOver: encodeSecrets(secrets) };
}

/** The `api_key_env` names in the child's global settings; none when it has none readable. */
async function configured(env: Env, cwd: string): Promise<string[]> {
  const home = env.MC_HOME ? resolve(cwd, env.MC_HOME) : join(env.HOME || homedir(), ".mc");
  try {
    const text = await readFile(join(home, "config.json"), "utf8");
    if (text.length > CONFIG_BYTES) return [];
    const providers = (JSON.parse(text) as { providers?: unknown }).providers;
    if (typeof providers !== "object" || providers === null) return [];
    return Object.values(providers).flatMap((entry: unknown) => {
      const name = (entry as { api_key_env?: unknown } | null)?.api_key_env;
      return typeof name === "string" && VARIABLE_NAME.test(name) ? [name] : [];
    });
  } catch {
    return [];
  }
}
