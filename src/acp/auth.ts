/**
 * ACP's authentication (docs/acp.md, "First run"): the terminal method that runs `mc-agent
 * setup`, or the words saying what to run; and whether anything is usable at all.
 */
import type { AuthMethod, ClientCapabilities, RequestError } from "@agentclientprotocol/sdk";
import { discoverCredential } from "../credentials/discovery.js";
import { resolveProviders, splitModelId } from "../models/providers.js";
import { forgetVariables } from "../process/secret-env.js";
import { engineModelServices } from "../server/engine-face.js";
import { credentialPaths } from "../store/credential-paths.js";
import { loadSettings } from "../store/settings.js";
import type { CatalogStatus } from "./config-options.js";
import { glanceCredentials } from "./credentials-glance.js";
import { defaultProviders } from "./default-providers.js";
import type { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";
import {
  authMethodsOf,
  CONFIGURE_METHOD_ID,
  SETUP_METHOD_ID,
  setupWords,
} from "./initialize-answer.js";

export { CONFIGURE_METHOD_ID, SETUP_METHOD_ID, setupWords };

interface Where {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Whether any configured provider has usable credentials (a keyless custom one counts): the
 * glance when it settles it (credentials-glance.ts), else the settings and each provider's
 * credential, as the engine discovers them, without the engine's catalog or trust (which the
 * engine's model services built here before).
 */
export async function anyCredentials(where: Where): Promise<boolean> {
  return glanceCredentials(where, defaultProviders()) ?? (await lookForCredentials(where));
}

/** The full look: the settings read and each provider's credential discovered. */
export async function lookForCredentials(where: Where): Promise<boolean> {
  const { cwd, home, env } = where;
  const providers = resolveProviders(loadSettings(home, cwd));
  // As the engine's model services do: the configured key variables leave process.env (the
  // agent's own copy, `env`, keeps them), so nothing this process starts inherits them.
  if (env !== process.env)
    forgetVariables(providers.flatMap((p) => (p.api_key_env ? [p.api_key_env] : [])));
  const paths = credentialPaths(home, env);
  for (const provider of providers) {
    const found = await discoverCredential(provider, { env, paths });
    if (found !== null) return true;
  }
  return false;
}

/**
 * Nothing can answer a prompt in `cwd`: no provider has credentials and no model is a
 * selectable choice. Then `session/new` is ACP's `auth_required`, not a later prompt failure.
 */
export async function nothingUsable(where: Where): Promise<boolean> {
  if (await anyCredentials(where)) return false;
  const services = engineModelServices(where.cwd, where.home, where.env);
  return (await services.catalog.fresh()).choices.length === 0;
}

/**
 * Why a new session's first prompt would be refused for credentials, or null: its selected
 * model's provider has none (the turn's admission would answer `authentication_unavailable`; a
 * model not cached with such a provider, `model_unavailable` with the same step). Read from the
 * engine's own `model.catalog.status` (`status`, read by the caller, whose choices then give the
 * session's config options: config-options.ts `readCatalog`), which checks the selected model's provider always, as
 * the admission does (discoverCredential; a keyless custom provider is ready). So session/new
 * answers it as ACP's `auth_required`, naming the provider, instead of a first prompt failing.
 */
export function unreadySelection(engine: EngineLink, status: CatalogStatus): RequestError | null {
  const selected = status.selection.model;
  const provider = selected === null ? undefined : splitModelId(selected)?.[0];
  const entry = status.providers.find((p) => p.provider === provider);
  if (entry?.authentication !== "authentication_unavailable") return null;
  return engine.nextSteps.missingCredentials(entry.provider);
}

/** ACP's auth methods for the client's capabilities, as parsed by the SDK (initialize-answer.ts). */
export function authMethods(
  where: Where,
  capabilities: ClientCapabilities | undefined,
): Promise<AuthMethod[]> {
  return authMethodsOf(
    capabilities?.auth?.terminal === true,
    () => anyCredentials(where),
    where.home,
  );
}

/** `authenticate`: the agent method looks again; the terminal method is not for this call. */
export async function authenticate(methodId: string, where: Where): Promise<Record<string, never>> {
  if (methodId === SETUP_METHOD_ID)
    throw acpError(
      "invalid_params",
      "That method runs in a terminal: run the agent's command with --setup.",
    );
  if (methodId !== CONFIGURE_METHOD_ID) throw acpError("invalid_params", "No such auth method.");
  if (await anyCredentials(where)) return {};
  throw acpError("authentication_unavailable", setupWords(where.home));
}
