/**
 * `mc-agent acp`'s answer to `initialize`, built by one function for both of its paths: the
 * SDK's handler (agent.ts) and the starter (starter.ts), which answers an editor's first
 * `initialize` before the SDK and the engine have loaded. So this module loads neither the SDK
 * (its types only) nor zod: the starter's bundle, dist/child/acp-starter.cjs, holds it whole.
 */
import type { AuthMethod } from "@agentclientprotocol/sdk";
import { quote } from "shell-quote";
import { SERVER_INFO } from "../protocol/constants.js";
import { resolveHome } from "../store/home.js";
import { globalSettingsPath } from "../store/settings-file.js";

/**
 * Our ACP extension method for steering (docs/acp.md, "Queued prompts and steering"): ACP has
 * no steering of its own, and an extension method's name starts with `_`.
 */
export const STEER_METHOD = "_mc/steer";

/** The terminal method: the editor runs our command with `--setup` appended (src/main.ts). */
export const SETUP_METHOD_ID = "mc-agent-setup";
/** The method a client without terminal authentication gets: it only looks again. */
export const CONFIGURE_METHOD_ID = "configure-credentials";

/**
 * `mc-agent <words>` as the user must type it: with the real MC_HOME when it is not the
 * default, since the user types it in a terminal whose environment is not the editor's.
 */
export function commandWording(home: string): (words: string) => string {
  const prefix = home === resolveHome({}) ? "" : `MC_HOME=${quote([home])} `;
  return (words) => `${prefix}mc-agent ${words}`;
}

/** What to do when nothing is usable, with the real MC_HOME. */
export function setupWords(home: string): string {
  return (
    `No model provider is set up with credentials. Run "${commandWording(home)("setup")}" in a terminal: it finds your API ` +
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
 * `credentials` is asked only for a client without terminal authentication.
 */
export async function authMethodsOf(
  terminal: boolean,
  credentials: () => Promise<boolean> | boolean,
  home: string,
): Promise<AuthMethod[]> {
  if (terminal)
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
  if (await credentials()) return [];
  return [
    { id: CONFIGURE_METHOD_ID, name: "Configure a model provider", description: setupWords(home) },
  ];
}

/**
 * The `initialize` result: `protocolVersion` is the SDK's PROTOCOL_VERSION (the starter has it
 * inlined by scripts/bundle.js), whatever version the client asked for.
 */
export function initializeResult(protocolVersion: number, authMethods: AuthMethod[]) {
  return {
    protocolVersion,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {}, delete: {} },
      // A prompt sent while one runs is queued, as the Claude ACP agent advertises it;
      // ours also names the steering method (docs/acp.md, "Queued prompts and steering").
      _meta: {
        claudeCode: { promptQueueing: true },
        "mc-agent": { promptQueueing: true, steer: STEER_METHOD },
      },
    },
    authMethods,
    agentInfo: { name: SERVER_INFO.name, title: "mc-agent", version: SERVER_INFO.version },
  };
}

/**
 * The line the SDK's NDJSON stream writes for a result (`JSON.stringify` of the JSON-RPC
 * response, then LF; the stdout sink passes results unchanged): what the starter writes.
 */
export function resultLine(id: string | number, result: unknown): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`;
}
