/**
 * ACP's authentication (docs/acp.md, "First run"): the terminal method that runs `mc-agent
 * setup`, or the words saying what to run; and whether anything is usable at all.
 */
import type { AuthMethod, ClientCapabilities } from "@agentclientprotocol/sdk";
import { discoverCredential } from "../credentials/discovery.js";
import { engineModelServices } from "../server/engine-face.js";
import { globalSettingsPath } from "../store/settings.js";
import { acpError } from "./errors.js";
import type { NextSteps } from "./next-steps.js";

/** The terminal method: the editor runs our command with `--setup` appended (src/main.ts). */
export const SETUP_METHOD_ID = "mc-agent-setup";
/** The method a client without terminal authentication gets: it only looks again. */
export const CONFIGURE_METHOD_ID = "configure-credentials";

interface Where {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Whether any configured provider has usable credentials (a keyless custom one counts). */
export async function anyCredentials({ cwd, home, env }: Where): Promise<boolean> {
  const services = engineModelServices(cwd, home, env);
  for (const provider of services.providers) {
    const found = await discoverCredential(provider, { env, paths: services.paths });
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

/** What to do when nothing is usable, with the real MC_HOME. */
export function setupWords(steps: NextSteps, home: string): string {
  return (
    `No model provider is set up with credentials. Run "${steps.command("setup")}" in a terminal: it finds your API ` +
    `keys, logins and local model servers (Ollama, LM Studio, ...), fetches a provider's models and ` +
    `writes your model to ${globalSettingsPath(home)}. Or set a provider's API key (for example ` +
    "OPENAI_API_KEY) in the environment the editor starts mc-agent with. Then start a new session."
  );
}

/**
 * ACP's auth methods. A client that can run our command in a terminal (`auth.terminal`) is
 * always offered `mc-agent acp --setup`, so the user can set up or change the model from the
 * editor. Any other client gets, only while no provider has credentials, one method that says
 * what to run; `authenticate` with it only looks again (mc-agent logs in to nothing itself).
 */
export async function authMethods(
  where: Where,
  capabilities: ClientCapabilities | undefined,
  steps: NextSteps,
): Promise<AuthMethod[]> {
  if (capabilities?.auth?.terminal === true)
    return [
      {
        type: "terminal",
        id: SETUP_METHOD_ID,
        name: "Set up a model provider",
        description:
          "Runs mc-agent setup: it finds your API keys, logins and local model servers, fetches a provider's models and sets your default model.",
        args: ["--setup"],
      },
    ];
  if (await anyCredentials(where)) return [];
  return [
    {
      id: CONFIGURE_METHOD_ID,
      name: "Configure a model provider",
      description: setupWords(steps, where.home),
    },
  ];
}

/** `authenticate`: the agent method looks again; the terminal method is not for this call. */
export async function authenticate(
  methodId: string,
  where: Where,
  steps: NextSteps,
): Promise<Record<string, never>> {
  if (methodId === SETUP_METHOD_ID)
    throw acpError(
      "invalid_params",
      "That method runs in a terminal: run the agent's command with --setup.",
    );
  if (methodId !== CONFIGURE_METHOD_ID) throw acpError("invalid_params", "No such auth method.");
  if (await anyCredentials(where)) return {};
  throw acpError("authentication_unavailable", setupWords(steps, where.home));
}
