/**
 * ACP's auth methods: whether any model provider has credentials, and what to do when none has.
 */
import type { AuthMethod } from "@agentclientprotocol/sdk";
import { discoverCredential } from "../credentials/discovery.js";
import { engineModelServices } from "../server/engine-face.js";

/**
 * ACP's auth methods: none while some provider has credentials. With none at all, one method
 * that says what to do; mc-agent logs in to nothing itself (keys come from the environment or
 * MC_HOME's credential files, docs/store.md), so `authenticate` only looks again.
 */
const CONFIGURE_CREDENTIALS: AuthMethod = {
  id: "configure-credentials",
  name: "Configure a model provider",
  description:
    "No model provider has credentials. Set a provider's API key (for example OPENAI_API_KEY or " +
    "ANTHROPIC_API_KEY) in the environment the editor starts mc-agent with, or configure a " +
    "provider in ~/.mc/config.json (see `mc-agent models`), then restart the agent.",
};

/** Whether any configured provider has usable credentials (a keyless custom one counts). */
export async function anyCredentials(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const services = engineModelServices(cwd, home, env);
  for (const provider of services.providers) {
    const found = await discoverCredential(provider, { env, paths: services.paths });
    if (found !== null) return true;
  }
  return false;
}

export async function authMethods(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<AuthMethod[]> {
  return (await anyCredentials(cwd, home, env)) ? [] : [CONFIGURE_CREDENTIALS];
}
